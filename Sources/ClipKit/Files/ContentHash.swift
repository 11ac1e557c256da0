// A hash of a file's bytes, read in fixed chunks with libavutil's hash functions.
@_weakLinked import CFFmpeg
import Foundation

/// Hashes the bytes of input files for fingerprints. libavutil's 128-bit MurmurHash3: it tells
/// an edited file from the one an output was made from, and it costs 17 ms per 100 MB (in memory)
/// on the bench machine, where libavutil's SHA-256 costs 314 ms (four thumbnails' worth). It is not a
/// defence against someone crafting a collision; nothing here needs one.
public enum ContentHash {
    /// The algorithm's name as libavutil knows it, and as fingerprints record it.
    static let algorithm = "murmur3"
    /// Bytes read at a time: memory stays this whatever the file's size.
    static let chunkBytes = 1 << 20

    /// The hash of the file at `url`, as hex. Reads the file once, a chunk at a time, checking
    /// `deadline` between chunks; `cancelled` is polled too, so a caller that no longer needs the
    /// value can stop the read.
    public static func ofFile(_ url: URL, deadline: Deadline = .none) throws -> String {
        try ofFile(url, deadline: deadline, cancelled: { false })
    }

    static func ofFile(_ url: URL, deadline: Deadline, cancelled: () -> Bool) throws -> String {
        let path = url.path
        let fd = open(FileSystemPath.cString(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw error(path, errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error(path, errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ClipKitError.unreadable(path: path, reason: "not a regular file")
        }
        // A /proc file says 0 and may block on read (/proc/kmsg): empty before any read, and
        // no read goes past the size the file declared.
        guard info.st_size > 0 else { throw ClipKitError.notMedia(path: path, reason: "empty file") }
        var remaining = Int(info.st_size)
        let hash = try HashContext(path: path)
        // A small file needs no 1 MiB buffer (a batch hashes many); read() fills what is used.
        let size = min(chunkBytes, max(Int(info.st_size), 4096))
        var buffer = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
        while remaining > 0 {
            try deadline.check(path)
            if cancelled() { throw CancellationError() }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, min(size, remaining)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(path, errno)
            }
            if count == 0 { break }
            remaining -= count
            hash.update(buffer[..<count])
        }
        return hash.hex()
    }

    /// The hash of a text's UTF-8 bytes, as hex (a stable hash for partitioning, for example).
    public static func ofText(_ text: String) -> String {
        ofBytes(Array(text.utf8))
    }

    /// The hash of `bytes`, as hex (a file name's bytes, which need not be UTF-8).
    public static func ofBytes(_ bytes: [UInt8]) -> String {
        // murmur3 is compiled into every libavutil; a failure here is a broken installation.
        guard let hash = try? HashContext(path: "options") else { return "0" }
        hash.update(bytes[...])
        return hash.hex()
    }

    /// One libavutil hash context, freed by its one owner.
    private final class HashContext {
        private var context: OpaquePointer?

        init(path: String) throws {
            guard av_hash_alloc(&context, ContentHash.algorithm) == 0, context != nil else {
                throw ClipKitError.internalFailure(path: path, reason: "libavutil has no \(ContentHash.algorithm) hash")
            }
            av_hash_init(context)
        }

        func update(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBufferPointer { av_hash_update(context, $0.baseAddress, size_t($0.count)) }
        }

        func hex() -> String {
            var digest = [UInt8](repeating: 0, count: Int(AV_HASH_MAX_SIZE))
            let size = Int(av_hash_get_size(context))
            av_hash_final(context, &digest)
            let digits = Array("0123456789abcdef".utf8)
            var hex = [UInt8]()
            hex.reserveCapacity(2 * size)
            for byte in digest.prefix(size) {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 15)])
            }
            return String(decoding: hex, as: UTF8.self)
        }

        deinit { av_hash_freep(&context) }
    }

    private static func error(_ path: String, _ code: Int32) -> ClipKitError {
        code == ENOENT ? .fileNotFound(path: path) : .unreadable(path: path, reason: String(cString: strerror(code)))
    }
}
