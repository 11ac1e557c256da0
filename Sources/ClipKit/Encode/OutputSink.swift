// Where libavformat's writes land: an AtomicFile's temp file, with the byte budget charged for growth only.
import Foundation

/// The target of an output `AVIOContext`'s callbacks. Muxers seek back to patch headers (and
/// MP4's fast start moves the whole media data to make room for `moov`), so the budget is
/// charged only when the file grows past its largest size so far: it holds the final size, and
/// no byte past the limit is ever written. A failure inside a callback is kept in `failure` for
/// the Swift caller to throw, since libavformat only passes on an error code.
final class OutputSink {
    let file: AtomicFile
    private let budget: ByteBudget?
    private let deadline: Deadline
    private(set) var position: Int64 = 0
    /// The file's size: the end of the furthest write.
    private(set) var size: Int64 = 0
    /// The first error a callback met.
    private(set) var failure: ClipKitError?

    init(file: AtomicFile, budget: ByteBudget?, deadline: Deadline) {
        self.file = file
        self.budget = budget
        self.deadline = deadline
    }

    var path: String { file.destination.path }

    /// Writes `count` bytes at the current position; false (with `failure` set) when they cannot be.
    func write(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard failure == nil else { return false }
        do {
            try deadline.check(path)
            let growth = position + Int64(count) - size
            if growth > 0 { try budget?.reserve(Int(growth), path: path) }
            var done = 0
            while done < count {
                let n = pwrite(file.fileDescriptor, bytes + done, count - done, off_t(position) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ClipKitError.outputFailed(path: path, reason: String(cString: strerror(errno)))
                }
                done += n
            }
            position += Int64(count)
            size = max(size, position)
            return true
        } catch let error as ClipKitError {
            failure = error
        } catch {
            failure = .outputFailed(path: path, reason: "\(error)")
        }
        return false
    }

    /// Moves the position as `lseek` does (`whence` SEEK_SET, SEEK_CUR or SEEK_END); nil when
    /// the result would be negative.
    func seek(to offset: Int64, whence: Int32) -> Int64? {
        let base: Int64
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = size
        default: return nil
        }
        let target = base + offset
        guard target >= 0 else { return nil }
        position = target
        return target
    }
}
