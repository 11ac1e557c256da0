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
        var template = Array((directory + "/." + destination.lastPathComponent + ".clipkit-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 {
            throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno)))
        }
        fchmod(fd, 0o644)
        self.fileDescriptor = fd
        self.temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        TempFileRegistry.shared.add(temporaryPath)
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

/// The temp files being written right now, so a signal handler can remove them before exiting.
public final class TempFileRegistry: @unchecked Sendable {
    public static let shared = TempFileRegistry()
    private let lock = NSLock()
    private var paths = Set<String>()

    func add(_ path: String) { lock.lock(); paths.insert(path); lock.unlock() }
    func remove(_ path: String) { lock.lock(); paths.remove(path); lock.unlock() }

    /// Removes every temp file still open. Called on SIGINT/SIGTERM.
    public func removeAll() {
        lock.lock()
        for path in paths { unlink(path) }
        paths.removeAll()
        lock.unlock()
    }
}
