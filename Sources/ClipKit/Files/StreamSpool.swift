// Copies a stream that cannot seek (standard input, a pipe) into a private regular file, chunk by chunk.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Standard input for `-` as an input: copied to a regular file, so every reader after it sees a
/// file of known size and seeks work (`--at`, `--pick`, a GIF's two passes), which reading the
/// pipe itself through a custom AVIO context could not give. Memory stays at one 64 KiB chunk
/// whatever the stream's length; the disk holds at most `maxBytes`.
public enum StreamSpool {
    /// A failure, as one line without the `clipkit: -:` prefix.
    public struct Failure: Error, Sendable {
        public var reason: String
    }

    /// Reads `descriptor` to its end into `directory`/stdin.EXT, where EXT comes from the first
    /// bytes (names decide how images and manifests are read: .gif, .png, .json, else .video).
    /// Waits for data at most `timeout` seconds in all; fails past `maxBytes` or on an empty
    /// stream. Returns the file's path; on a failure nothing is left in `directory`.
    public static func copy(from descriptor: Int32, into directory: String, timeout: Double?,
                            maxBytes: Int) throws(Failure) -> String {
        let partial = directory + "/stdin.part"
        let file = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Failure(reason: "cannot copy standard input to \(directory): \(Self.lastError)") }
        var closed = false
        defer {
            if !closed { close(file) }
        }
        do throws(Failure) {
            let head = try pump(from: descriptor, to: file, timeout: timeout, maxBytes: maxBytes)
            closed = true
            guard close(file) == 0 else { throw Failure(reason: "cannot copy standard input to \(directory): \(Self.lastError)") }
            let path = directory + "/stdin" + Self.fileExtension(of: head)
            guard rename(partial, path) == 0 else { throw Failure(reason: "cannot copy standard input to \(directory): \(Self.lastError)") }
            return path
        } catch {
            unlink(partial)
            throw error
        }
    }

    /// The extension a file with these first bytes is read by.
    static func fileExtension(of head: [UInt8]) -> String {
        if head.starts(with: Array("GIF8".utf8)) { return ".gif" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return ".png" }
        if head.first == UInt8(ascii: "{") { return ".json" }
        return ".video"
    }

    /// Copies until end of stream; returns the stream's first bytes (up to 4).
    private static func pump(from descriptor: Int32, to file: Int32, timeout: Double?, maxBytes: Int) throws(Failure) -> [UInt8] {
        let end = timeout.map { Date().addingTimeInterval($0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var head: [UInt8] = []
        var total = 0
        while true {
            // A stream that never pauses (`< /dev/urandom`) must stop at the deadline too: poll
            // alone stopped only one that ran dry (4 GiB copied, 22 s past `--timeout 2`).
            if let end, end.timeIntervalSinceNow <= 0 {
                throw Failure(reason: "standard input: gave up after --timeout \(timeout ?? 0) s")
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let wait = end.map { Int32(max(0, min(1_000_000, $0.timeIntervalSinceNow * 1000)).rounded(.up)) } ?? -1
            let ready = poll(&poller, 1, wait)
            if ready < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: "cannot read standard input: \(Self.lastError)")
            }
            if ready == 0 {
                throw Failure(reason: "standard input: gave up after --timeout \(timeout ?? 0) s")
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure(reason: "cannot read standard input: \(Self.lastError)")
            }
            if count == 0 { break }
            guard count <= maxBytes - total else {
                throw Failure(reason: "standard input is larger than \(maxBytes) bytes")
            }
            if head.count < 4 { head += chunk[..<min(count, 4 - head.count)] }
            var offset = 0
            while offset < count {
                let written = chunk.withUnsafeBytes { write(file, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Failure(reason: "cannot copy standard input: \(Self.lastError)")
                }
                offset += written
            }
            total += count
        }
        guard total > 0 else { throw Failure(reason: "standard input is empty") }
        return head
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
