// Bytes on stdout that notice a closed pipe (`| head -c1`) instead of dying of SIGPIPE.
import Foundation

enum StandardOutput {
    /// Writes `text` and a newline to stdout unbuffered; nil when written, else why not: "stdout
    /// was closed" for a closed pipe (SIGPIPE is ignored, so it is EPIPE here), the system's
    /// reason otherwise (`> /dev/full` is no space, not a closed stdout).
    static func writeLine(_ text: String) -> String? {
        Array((text + "\n").utf8).withUnsafeBytes { write($0, to: STDOUT_FILENO) }
    }

    /// Writes all of `bytes` to `descriptor` (standard output, or the real one while fd 1 is
    /// stderr: `-o -`); nil when written, else why not, in `writeLine`'s words.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                // EBADF: closed by the caller (`>&-`; main opens it read-only in its place).
                return errno == EPIPE || errno == EBADF ? "stdout was closed" : "cannot write to standard output: \(String(cString: strerror(errno)))"
            }
            offset += written
        }
        return nil
    }
}
