// What an output path names: a regular file (new, or through a symbolic link), or a device or pipe the bytes are copied into.
import Foundation

/// Where an output's bytes end up. A new or regular file is replaced whole by a rename, as any
/// output is; a symbolic link is followed, so the file it names is replaced and the link stays
/// (as `ffmpeg -y` and `cp` write through a link); a character device or a named pipe
/// (`-o /dev/null`, `-o /dev/full`, a FIFO a reader holds open) cannot be renamed over, so the
/// complete output is copied into it, and a failed copy (`/dev/full`: no space) is the
/// output's error. Renaming over them replaced the device node itself with a file: as root,
/// `-o /dev/null` left a 600-byte PNG where the system's /dev/null was, and `gif -o /dev/full`
/// reported success. Block devices and sockets are refused.
struct OutputTarget: Sendable {
    enum Kind: Sendable { case file, stream }
    /// The path the bytes go to (links resolved).
    let path: String
    let kind: Kind

    /// The target `destination` names; throws for what clipkit does not write into.
    static func resolve(_ destination: URL) throws -> OutputTarget {
        var path = destination.path
        var info = stat()
        // What the path leads to, links followed by the kernel: a device or a pipe is written
        // through the path as given, since open() follows the links readlink cannot spell
        // (`/dev/stdout` -> /proc/self/fd/1 -> "pipe:[1234]").
        if stat(FileSystemPath.cString(path), &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            return try target(path, info, destination)
        }
        // A chain of links is followed to its end, which may not exist yet (a link to the file
        // a first run makes); as many links as the kernel follows at most (ELOOP past it).
        for _ in 0...40 {
            guard lstat(FileSystemPath.cString(path), &info) == 0 else {
                guard errno == ENOENT else { throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno))) }
                return OutputTarget(path: path, kind: .file)
            }
            guard info.st_mode & S_IFMT == S_IFLNK else { return try target(path, info, destination) }
            guard let next = FileSystemPath.linkTarget(path) else { throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno))) }
            path = next
        }
        throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(ELOOP)))
    }

    private static func target(_ path: String, _ info: stat, _ destination: URL) throws -> OutputTarget {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return OutputTarget(path: path, kind: .file)
        case S_IFCHR, S_IFIFO: return OutputTarget(path: path, kind: .stream)
        case S_IFDIR: throw ClipKitError.outputFailed(path: destination.path, reason: "is a directory")
        case S_IFBLK: throw ClipKitError.outputFailed(path: destination.path, reason: "is a block device; clipkit writes files, character devices and pipes")
        default: throw ClipKitError.outputFailed(path: destination.path, reason: "is not a file clipkit can write (a socket?)")
        }
    }

    /// Copies the complete file at `temporaryPath` into this stream target. A pipe nobody reads
    /// is an error at once, not a wait (O_NONBLOCK on open: ENXIO), then it is written blocking.
    func copy(from temporaryPath: String, destination: URL) throws {
        func failure(_ reason: String? = nil) -> ClipKitError {
            .outputFailed(path: destination.path, reason: reason ?? String(cString: strerror(errno)))
        }
        let source = open(FileSystemPath.cString(temporaryPath), O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw failure() }
        defer { close(source) }
        let sink = open(FileSystemPath.cString(path), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard sink >= 0 else { throw failure(errno == ENXIO ? "is a pipe no process is reading" : nil) }
        defer { close(sink) }
        let flags = fcntl(sink, F_GETFL)
        guard flags >= 0, fcntl(sink, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw failure() }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw failure() }
            if n == 0 { break }
            var offset = 0
            while offset < n {
                let w = buffer.withUnsafeBytes { write(sink, $0.baseAddress! + offset, n - offset) }
                if w < 0 { if errno == EINTR { continue }; throw failure() }
                offset += w
            }
        }
    }
}
