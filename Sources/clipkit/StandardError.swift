// Lines on stderr that cannot crash clipkit when stderr is closed, full or a pipe nobody reads.
import Foundation

enum StandardError {
    /// Writes `text` to stderr unbuffered, as far as it will go. Foundation's
    /// `FileHandle.standardError.write` traps when the write fails (`2>&-`, `2>/dev/full`, a
    /// pipe whose reader is gone: EBADF, ENOSPC, EPIPE with SIGPIPE ignored): the first warning,
    /// error or summary line killed the run with "Illegal instruction", batches at their first
    /// failed input. What cannot be said is dropped; the exit status still tells.
    static func write(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { StandardOutput.write($0, to: STDERR_FILENO) }
    }
}
