// The file-system calls clipkit makes on paths, through the bytes a path stands for (FileManager would use its UTF-8).
import Foundation

extension FileSystemPath {
    /// True when `path` exists (links followed); `isDirectory` tells whether it is a directory.
    public static func exists(_ path: String, isDirectory: UnsafeMutablePointer<Bool>? = nil) -> Bool {
        var info = stat()
        guard stat(cString(path), &info) == 0 else { return false }
        isDirectory?.pointee = info.st_mode & S_IFMT == S_IFDIR
        return true
    }

    /// True when `path` is a directory (links followed).
    public static func isDirectory(_ path: String) -> Bool {
        var directory = false
        return exists(path, isDirectory: &directory) && directory
    }

    /// Whether `path` is a regular file, links followed (what an output may replace: not a
    /// directory, device or pipe).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(cString(path), &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The path a dangling symbolic link at `path` names (the chain followed as far as it goes
    /// and written as the last link holds it), or nil when `path` is no link or leads to something that exists.
    public static func danglingLinkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(cString(path), &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
              stat(cString(path), &info) != 0, errno == ENOENT else { return nil }
        var current = path
        for _ in 0..<40 {
            guard let next = linkTarget(current) else { break }
            current = next
            guard lstat(cString(current), &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { break }
        }
        return URL(fileURLWithPath: current).standardized.path
    }

    /// What the symbolic link at `path` holds, as a path (a relative one taken from the link's
    /// directory); nil when `path` is no link or cannot be read (`errno` set).
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(cString(path), &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let link = buffer.withUnsafeBytes { string(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        return link.hasPrefix("/") ? link : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(link)
    }

    /// `mkdir -p`: creates `path` and its missing parents (mode 0777 less the umask); throws
    /// the `errno` of the first that cannot be made, or ENOTDIR when one is a file.
    public static func createDirectories(_ path: String) throws(POSIXError) {
        if isDirectory(path) { return }
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while components.count > 1, components.last == "" { components.removeLast() }
        var prefix = ""
        for (index, component) in components.enumerated() {
            prefix += index == 0 ? component : "/" + component
            guard !prefix.isEmpty, !component.isEmpty, component != "." else { continue }
            if mkdir(cString(prefix), 0o777) == 0 {
                CreatedDirectories.record(prefix)
                continue
            }
            let code = errno
            guard code == EEXIST, isDirectory(prefix) else {
                throw POSIXError(POSIXErrorCode(rawValue: code == EEXIST ? ENOTDIR : code) ?? .EIO)
            }
        }
    }

    /// The names in `directory` but `.` and `..` (hidden ones included), in their lossless form;
    /// nil when it cannot be read.
    public static func contents(of directory: String) -> [String]? {
        guard let stream = opendir(cString(directory)) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        // d_name is read in place up to its NUL: a record is only as long as its name (d_reclen),
        // so copying the declared 256-byte field reads past it (valgrind: uninitialised bytes).
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(stream) {
            let field = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            let name = Array(UnsafeRawBufferPointer(start: field, count: strlen(field)))
            guard name != [0x2E], name != [0x2E, 0x2E] else { continue }
            names.append(string(name))
        }
        return names
    }

    /// Removes `path` and, for a directory, everything in it; links are removed, never followed.
    public static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(cString(path), &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlink(cString(path))
            return
        }
        for name in contents(of: path) ?? [] { removeTree(path + "/" + name) }
        rmdir(cString(path))
    }

    /// `path` (made absolute) with links resolved: `URL.resolvingSymlinksInPath()` for a path
    /// that is UTF-8; otherwise `realpath` of the longest part that exists, the rest appended.
    public static func resolvingLinks(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        guard !isUTF8(path) else { return url.resolvingSymlinksInPath().path }
        var head = url.path, tail: [String] = []
        while head.count > 1 {
            if let real = realpath(cString(head), nil) {
                defer { free(real) }
                return ([string(cString: real)] + tail.reversed()).joined(separator: "/")
            }
            tail.append((head as NSString).lastPathComponent)
            head = (head as NSString).deletingLastPathComponent
        }
        return url.path
    }

    /// The current directory in its lossless form.
    public static var currentDirectory: String {
        guard let cwd = getcwd(nil, 0) else { return FileManager.default.currentDirectoryPath }
        defer { free(cwd) }
        return string(cString: cwd)
    }

    /// A handle reading `path`, or nil (with `errno`) when it cannot be opened.
    /// `path` opened for reading only when it is a regular file, with its size: opened without
    /// blocking (a FIFO put in its place after a check cannot hold the open), then checked on the
    /// descriptor. Reading at most the size returned never waits on a file whose reads block
    /// (/proc/kmsg reports size 0).
    static func openRegularFile(_ path: String) -> (handle: FileHandle, size: Int)? {
        let fd = open(cString(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        return (FileHandle(fileDescriptor: fd, closeOnDealloc: true), Int(info.st_size))
    }

    /// The contents of the regular file `path`, read up to its size when opened and at most
    /// `limit` + 1 bytes (more than `limit` tells the caller it is too large); nil when it is not
    /// a regular file or cannot be read.
    static func contentsOfRegularFile(_ path: String, limit: Int) -> Data? {
        guard let (handle, size) = openRegularFile(path) else { return nil }
        defer { try? handle.close() }
        var data = Data()
        while data.count < min(size, limit + 1) {
            guard let chunk = try? handle.read(upToCount: min(size, limit + 1) - data.count), !chunk.isEmpty else { break }
            data.append(chunk)
        }
        return data
    }

    /// `path` opened for reading when it is a regular file (see `openRegularFile`); nil otherwise.
    public static func handleForReading(_ path: String) -> FileHandle? {
        openRegularFile(path)?.handle
    }
}
