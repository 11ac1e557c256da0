// Bytes of a GIF, from a file (buffered) or from memory, with the sub-block framing GIF data uses.
import Foundation

/// Buffered reads from a file descriptor it owns and closes, or from bytes in memory.
final class GIFByteReader {
    /// One data sub-block (a length byte and up to 255 bytes), the zero-length terminator, or
    /// the part of a sub-block before the end of the file.
    enum SubBlock {
        case data(UnsafeBufferPointer<UInt8>)
        case terminator
        case truncated(UnsafeBufferPointer<UInt8>)
    }

    private static let fileBufferSize = 1 << 16
    /// -1 for bytes in memory.
    private let fd: Int32
    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// Bytes the file may still give: its size when checked, so a file that grows (or a
    /// special file posing as a regular one) is never read past what it declared.
    private var remaining: Int

    init(url: URL) throws {
        let path = url.path
        remaining = try InputFile.check(path)
        // Opened without blocking and checked on the descriptor: a FIFO put in the file's place
        // after the check cannot hold the open or the reads.
        let fd = open(FileSystemPath.cString(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ClipKitError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ClipKitError.unreadable(path: path, reason: "not a regular file")
        }
        // Nothing below can throw: the descriptor and buffer are owned from here on.
        self.fd = fd
        capacity = Self.fileBufferSize
        buffer = .allocate(capacity: capacity)
    }

    init(bytes: [UInt8]) {
        fd = -1
        capacity = max(bytes.count, 1)
        remaining = 0
        buffer = .allocate(capacity: capacity)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.initialize(from: base, count: source.count) }
        }
        end = bytes.count
        atEOF = true
    }

    deinit {
        if fd >= 0 { close(fd) }
        buffer.deallocate()
    }

    func byte() -> UInt8? {
        if start == end && !fill(1) { return nil }
        defer { start += 1 }
        return buffer[start]
    }

    /// The next `count` bytes (valid until the next call), or nil if the file ends first.
    func bytes(_ count: Int) -> UnsafeBufferPointer<UInt8>? {
        guard fill(count) else { return nil }
        defer { start += count }
        return UnsafeBufferPointer(start: buffer + start, count: count)
    }

    func subBlock() -> SubBlock {
        guard let length = byte() else { return .truncated(UnsafeBufferPointer(start: buffer, count: 0)) }
        if length == 0 { return .terminator }
        let count = Int(length)
        if let data = bytes(count) { return .data(data) }
        // Hand over what is left so a decoder can use the pixels it holds.
        let available = UnsafeBufferPointer(start: buffer + start, count: end - start)
        start = end
        return .truncated(available)
    }

    /// Makes `count` bytes available from `start`; false if the file has fewer.
    private func fill(_ count: Int) -> Bool {
        if end - start >= count { return true }
        if atEOF { return false }
        if start > 0 {
            memmove(buffer, buffer + start, end - start)
            end -= start
            start = 0
        }
        while end - start < count {
            let n = remaining > 0 ? read(fd, buffer + end, min(capacity - end, remaining)) : 0
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                atEOF = true
                return false
            }
            end += n
            remaining -= n
        }
        return true
    }
}
