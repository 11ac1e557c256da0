// Lines on stdout that notice a closed pipe (`| head -c1`) instead of dying of SIGPIPE.
import Foundation

enum StandardOutput {
    /// Writes `text` and a newline to stdout unbuffered; false when stdout is closed or failing
    /// (SIGPIPE is ignored, so a closed pipe is EPIPE here).
    static func writeLine(_ text: String) -> Bool {
        let bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
