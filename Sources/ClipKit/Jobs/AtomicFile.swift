// Writes an output file so that it appears whole or not at all: temp file in the target directory, then rename.
import Foundation

/// A file being written: bytes go to a hidden temp file beside the target, which `commit()` renames
/// over the target. Dropped without `commit()`, or on SIGINT/SIGTERM (see `TempFileRegistry`), the
/// temp file is removed, so a failed or interrupted run leaves nothing behind.
public final class AtomicFile {
    public let destination: URL
    public let temporaryPath: String
    private(set) var fileDescriptor: Int32
    private var done = false

    public init(destination: URL) throws {
        self.destination = destination
        let directory = destination.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ClipKitError.outputFailed(path: destination.path, reason: "is a directory")
        }
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw ClipKitError.outputFailed(path: destination.path, reason: "directory \(directory) does not exist")
        }
        guard let (fd, path) = TempFileRegistry.shared.makeFile(template: directory + "/." + destination.lastPathComponent + ".clipkit-XXXXXX") else {
            throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno)))
        }
        fchmod(fd, 0o644)
        self.fileDescriptor = fd
        self.temporaryPath = path
    }

    /// Appends bytes to the temp file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
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

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Closes the temp file and renames it over the destination.
    public func commit() throws {
        guard !done else { return }
        done = true
        defer { TempFileRegistry.shared.remove(temporaryPath) }
        if close(fileDescriptor) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw ClipKitError.outputFailed(path: destination.path, reason: reason)
        }
        fileDescriptor = -1
        if rename(temporaryPath, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw ClipKitError.outputFailed(path: destination.path, reason: reason)
        }
    }

    /// Abandons the write: the temp file is removed and the destination is untouched.
    public func discard() {
        guard !done else { return }
        done = true
        if fileDescriptor >= 0 { close(fileDescriptor) }
        fileDescriptor = -1
        unlink(temporaryPath)
        TempFileRegistry.shared.remove(temporaryPath)
    }

    deinit { discard() }

    /// Writes `bytes` to `destination` atomically.
    public static func write(_ bytes: [UInt8], to destination: URL) throws {
        let file = try AtomicFile(destination: destination)
        try file.write(bytes)
        try file.commit()
    }
}

/// The temp files and directories being written right now, so a signal handler can remove them
/// before exiting. Creation happens under the same lock as removal, so a signal arriving between
/// creating a temp file and registering it cannot leave the file behind.
public final class TempFileRegistry: @unchecked Sendable {
    public static let shared = TempFileRegistry()
    private let lock = NSLock()
    private var paths = Set<String>()
    private var directories = Set<String>()
    private var closed = false

    /// `mkstemp(template)`, registered; nil (with `errno` set) on failure or after `removeAll()`.
    func makeFile(template: String) -> (Int32, String)? {
        lock.lock(); defer { lock.unlock() }
        if closed { errno = EINTR; return nil }
        var bytes = Array(template.utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        let path = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        paths.insert(path)
        return (fd, path)
    }

    /// `mkdtemp(template)`, registered; nil (with `errno` set) on failure or after `removeAll()`.
    public func makeDirectory(template: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        if closed { errno = EINTR; return nil }
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
        let path = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        directories.insert(path)
        return path
    }

    func remove(_ path: String) { lock.lock(); paths.remove(path); lock.unlock() }

    /// Forgets a temp directory (renamed into place, or removed by its owner).
    public func removeDirectory(_ path: String) { lock.lock(); directories.remove(path); lock.unlock() }

    /// Removes every temp file and directory still open and refuses new ones. Called on SIGINT/SIGTERM.
    public func removeAll() {
        lock.lock()
        closed = true
        for path in paths { unlink(path) }
        for path in directories { try? FileManager.default.removeItem(atPath: path) }
        paths.removeAll()
        directories.removeAll()
        lock.unlock()
    }
}
