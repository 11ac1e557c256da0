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
    private let settled = LockedBox(false)

    init(destination: URL, temporaryPath: String) {
        self.destination = destination
        self.temporaryPath = temporaryPath
    }

    /// Renames the file over the destination.
    func commit() throws {
        guard settled.withLock({ done in defer { done = true }; return !done }) else { return }
        defer { TempFileRegistry.shared.remove(temporaryPath) }
        if rename(temporaryPath, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw ClipKitError.outputFailed(path: destination.path, reason: reason)
        }
    }

    /// Removes the temp file; the destination is untouched.
    func discard() {
        guard settled.withLock({ done in defer { done = true }; return !done }) else { return }
        unlink(temporaryPath)
        TempFileRegistry.shared.remove(temporaryPath)
    }

    deinit { discard() }
}
