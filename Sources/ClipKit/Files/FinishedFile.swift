// A complete output still under its temp name, which one thread can hand to another to commit.
import Foundation

/// An output written in full to its hidden temp file (by `AtomicFile.finishWriting()`) and closed,
/// waiting for the others of its input: `commit()` renames it over the destination, and dropped
/// without `commit()` (or on SIGINT/SIGTERM, see `TempFileRegistry`) it is removed. Immutable
/// but for whether it is settled, kept in the lock box, so a stage thread can finish a file and
/// the caller commit it once every output of the input is complete.
final class FinishedFile: Sendable {
    let destination: URL
    let temporaryPath: String
    let target: OutputTarget
    private let settled = LockedBox(false)

    init(destination: URL, temporaryPath: String, target: OutputTarget) {
        self.destination = destination
        self.temporaryPath = temporaryPath
        self.target = target
    }

    /// Appends `bytes` to the finished file; with `riffSize`, also sets the RIFF header's size
    /// field to the new length less 8 (a chunk added to a WebP).
    func append(_ bytes: [UInt8], riffSize: Bool = false) throws {
        let fd = open(FileSystemPath.cString(temporaryPath), O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno))) }
        let end = Int(info.st_size)
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(end)) }
        guard written == bytes.count else {
            throw ClipKitError.outputFailed(path: destination.path, reason: written < 0 ? String(cString: strerror(errno)) : "short write")
        }
        if riffSize {
            let size = UInt32(truncatingIfNeeded: end + bytes.count - 8)
            let field: [UInt8] = [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
            guard field.withUnsafeBytes({ pwrite(fd, $0.baseAddress, 4, 4) }) == 4 else {
                throw ClipKitError.outputFailed(path: destination.path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Renames the file over the destination's target (a device or a pipe gets a copy).
    func commit() throws {
        guard settled.withLock({ done in defer { done = true }; return !done }) else { return }
        defer { TempFileRegistry.shared.remove(temporaryPath) }
        if target.kind == .stream {
            defer { unlink(FileSystemPath.cString(temporaryPath)) }
            try target.copy(from: temporaryPath, destination: destination)
            return
        }
        if rename(FileSystemPath.cString(temporaryPath), FileSystemPath.cString(target.path)) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(FileSystemPath.cString(temporaryPath))
            throw ClipKitError.outputFailed(path: destination.path, reason: reason)
        }
    }

    /// Removes the temp file; the destination is untouched.
    func discard() {
        guard settled.withLock({ done in defer { done = true }; return !done }) else { return }
        unlink(FileSystemPath.cString(temporaryPath))
        TempFileRegistry.shared.remove(temporaryPath)
    }

    deinit { discard() }
}
