// Writes an output file so that it appears whole or not at all: temp file in the target directory, then rename.
import Foundation

/// A file being written: bytes go to a hidden temp file beside the target, which `commit()` renames
/// over the target (through a symbolic link; a device or a pipe gets a copy: `OutputTarget`).
/// Dropped without `commit()`, or on SIGINT/SIGTERM (see `TempFileRegistry`), the
/// temp file is removed, so a failed or interrupted run leaves nothing behind.
final class AtomicFile {
    let destination: URL
    /// What the destination names: the file replaced (through a link), or a device or pipe.
    let target: OutputTarget
    let temporaryPath: String
    private(set) var fileDescriptor: Int32
    private var done = false
    private let budget: ByteBudget?

    /// `budget`, when given, is reserved before every write: a write that would pass it throws
    /// `limitExceeded` and writes nothing.
    init(destination: URL, budget: ByteBudget? = nil) throws {
        self.destination = destination
        self.budget = budget
        target = try OutputTarget.resolve(destination)
        // Beside the file it replaces (the same file system, for the rename); a device's or a
        // pipe's copy in the temp directory (/dev is neither clipkit's nor always writable).
        let directory = target.kind == .file ? (target.path as NSString).deletingLastPathComponent
                                             : (NSTemporaryDirectory() as NSString).standardizingPath
        if !FileSystemPath.isDirectory(directory) {
            throw ClipKitError.outputFailed(path: destination.path, reason: "directory \(directory) does not exist")
        }
        guard let (fd, path) = TempFileRegistry.shared.makeFile(template: directory + "/" + Self.temporaryName(for: destination.lastPathComponent)) else {
            throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno)))
        }
        // The mode an ordinary create gives (0666 less the umask), not mkstemp's 0600; it was
        // 0644 whatever the umask, so a private umask (077) still made outputs readable to all.
        fchmod(fd, 0o666 & ~StagingDirectory.umask)
        self.fileDescriptor = fd
        self.temporaryPath = path
    }

    /// The hidden temp name for an output called `name`: `.NAME.clipkit-XXXXXX`, with NAME cut
    /// (at a character boundary) so the whole fits in NAME_MAX (255 bytes).
    static func temporaryName(for name: String) -> String {
        let suffix = ".clipkit-XXXXXX"
        var stem = Substring(name)
        while stem.utf8.count + suffix.utf8.count + 1 > 255 { stem = stem.dropLast() }
        return "." + stem + suffix
    }

    /// `path` with each hidden temp name (`temporaryName`, and a staging directory's, which has
    /// the same form) turned back into the name it stands for: what messages show.
    static func finalPath(of path: String) -> String {
        guard path.contains(".clipkit-") else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { component -> Substring in
            // `.NAME.clipkit-XXXXXX` with NAME not empty -> NAME.
            let name = component.dropFirst()
            guard component.hasPrefix("."), let mark = name.range(of: ".clipkit-", options: .backwards),
                  name.distance(from: mark.upperBound, to: name.endIndex) == 6, mark.lowerBound > name.startIndex else { return component }
            return name[..<mark.lowerBound]
        }.joined(separator: "/")
    }

    /// Appends bytes to the temp file.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try budget?.reserve(bytes.count, path: destination.path)
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno)))
            }
            offset += n
        }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Closes the temp file and renames it over the destination.
    func commit() throws {
        guard !done else { return }
        try finishWriting().commit()
    }

    /// Closes the complete temp file and hands it on, to be committed with the input's other
    /// outputs (possibly by another thread); this value is done with it.
    func finishWriting() throws -> FinishedFile {
        guard !done else { throw ClipKitError.internalFailure(path: destination.path, reason: "closed twice") }
        done = true
        if Glibc.close(fileDescriptor) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(FileSystemPath.cString(temporaryPath))
            TempFileRegistry.shared.remove(temporaryPath)
            throw ClipKitError.outputFailed(path: destination.path, reason: reason)
        }
        fileDescriptor = -1
        return FinishedFile(destination: destination, temporaryPath: temporaryPath, target: target)
    }

    /// Abandons the write: the temp file is removed and the destination is untouched.
    func discard() {
        guard !done else { return }
        done = true
        if fileDescriptor >= 0 { close(fileDescriptor) }
        fileDescriptor = -1
        unlink(FileSystemPath.cString(temporaryPath))
        TempFileRegistry.shared.remove(temporaryPath)
    }

    deinit { discard() }

    /// Writes `bytes` to `destination` atomically.
    static func write(_ bytes: [UInt8], to destination: URL, budget: ByteBudget? = nil) throws {
        let file = try AtomicFile(destination: destination, budget: budget)
        try file.write(bytes)
        try file.commit()
    }
}
