// Checks an input path before anything opens it: a FIFO or device would block a read forever.
import Foundation

enum InputFile {
    /// Throws the typed error for a path that is missing, a directory, not a regular file,
    /// empty, or unreadable, and returns its size. Nothing is opened, so a FIFO cannot block.
    /// A regular file of size 0 is empty before any read: /proc files (whose reads may block,
    /// as /proc/kmsg does) report 0, so they are refused the same way, whatever they hold.
    /// `allowingEmpty`: a size of 0 is returned instead of refused (a run file of a run that
    /// made no line).
    @discardableResult
    static func check(_ path: String, allowingEmpty: Bool = false) throws -> Int {
        var info = stat()
        guard stat(FileSystemPath.cString(path), &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw ClipKitError.fileNotFound(path: path) }
            throw ClipKitError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw ClipKitError.isDirectory(path: path)
        case S_IFREG: break
        default: throw ClipKitError.unreadable(path: path, reason: "not a regular file")
        }
        guard info.st_size > 0 || allowingEmpty else { throw ClipKitError.notMedia(path: path, reason: "empty file") }
        guard access(FileSystemPath.cString(path), R_OK) == 0 else {
            throw ClipKitError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        return Int(info.st_size)
    }
}
