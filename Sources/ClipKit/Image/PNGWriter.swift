// Encodes RGBAImage as PNG, streaming: rows are filtered and deflated one at a time and IDAT chunks
// written as they fill, so memory is a few rows, not a copy of the image. No timestamps; the one
// text chunk is an optional fingerprint, so the same pixels (and fingerprint) give the same bytes.
import CPNG
import Foundation

/// Writes `RGBAImage`s as 8-bit PNG, atomically when written to a file.
public enum PNGWriter {
    public enum Channels: Sendable { case rgb, rgba }

    /// How rows are predicted before compression.
    public enum Filter: UInt8, Sendable {
        /// No prediction: best for palette-like pictures (GIF frames), whose flat runs deflate well as they are.
        case none = 0
        /// Each byte minus the one a pixel to the left: best for smooth video frames.
        case sub = 1
    }

    /// zlib level 2: measured on exploded GIF frames, several times faster than libpng's
    /// defaults (adaptive filters, level 6) and, with the right filter, no larger than level 3;
    /// explode writes hundreds of frames, so speed wins.
    static let compressionLevel: Int32 = 2
    /// Compressed bytes per IDAT chunk (libpng writes 8 KiB ones; larger means fewer headers).
    static let chunkSize = 64 << 10
    /// How often a long write looks at the clock.
    static let rowsPerDeadlineCheck = 64

    /// PNG bytes for `image`, 8-bit, RGB (alpha dropped) or RGBA.
    public static func encode(_ image: RGBAImage, channels: Channels = .rgba, filter: Filter = .sub) throws -> [UInt8] {
        try encode(image, channels: channels, filter: filter, fingerprint: nil)
    }

    /// PNG bytes with `fingerprint` recorded in a `tEXt` chunk before `IEND`.
    static func encode(_ image: RGBAImage, channels: Channels, filter: Filter, fingerprint: Fingerprint?) throws -> [UInt8] {
        var png: [UInt8] = []
        try stream(image, channels: channels, filter: filter, fingerprint: fingerprint) { png += $0 }
        return png
    }

    /// Writes `image` to `url` atomically (temp file + rename).
    public static func write(_ image: RGBAImage, to url: URL, channels: Channels = .rgba, filter: Filter = .sub) throws {
        try write(image, to: url, channels: channels, filter: filter, budget: nil)
    }

    /// `budget` bounds the bytes written (`--max-output`): nothing is written past it. `deadline`
    /// is checked every `rowsPerDeadlineCheck` rows (a 10,000-pixel-wide frame takes seconds),
    /// failing in the name of `source`.
    static func write(_ image: RGBAImage, to url: URL, channels: Channels, filter: Filter, budget: ByteBudget?,
                      fingerprint: Fingerprint? = nil, deadline: Deadline = .none, source: String = "") throws {
        let file = try AtomicFile(destination: url, budget: budget)
        try stream(image, channels: channels, filter: filter, fingerprint: fingerprint, deadline: deadline, source: source) {
            try file.write($0)
        }
        try file.commit()
    }

    /// Produces the PNG in pieces (signature, chunks) and hands each to `emit`.
    static func stream(_ image: RGBAImage, channels: Channels, filter: Filter, fingerprint: Fingerprint? = nil,
                       deadline: Deadline = .none, source: String = "", emit: ([UInt8]) throws -> Void) throws {
        guard image.width > 0, image.height > 0 else {
            throw ClipKitError.internalFailure(path: "png", reason: "cannot write an empty image")
        }
        try emit([137, 80, 78, 71, 13, 10, 26, 10])
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [8, channels == .rgba ? 6 : 2, 0, 0, 0]  // bit depth, colour type, compression, filter, interlace
        try emit(chunk("IHDR", header))

        var deflater = try Deflater(level: compressionLevel, chunkSize: chunkSize)
        let components = channels == .rgba ? 4 : 3
        let rowBytes = image.width * components
        var row = [UInt8](repeating: 0, count: rowBytes + 1)
        let predict = filter == .sub
        for y in 0..<image.height {
            if y % Self.rowsPerDeadlineCheck == 0 { try deadline.check(source) }
            // The row's filter type, then its bytes, predicted by that filter.
            image.pixels.withUnsafeBufferPointer { src in
                row.withUnsafeMutableBufferPointer { dst in
                    dst[0] = filter.rawValue
                    var previous: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                    // Wrapping arithmetic in this per-pixel loop: indices are within the image
                    // and the row by the loop bounds (checked builds would test every one).
                    let base = y &* image.width &* 4
                    for x in 0..<image.width {
                        let i = base &+ x &* 4, o = 1 &+ x &* components
                        let r = src[i], g = src[i &+ 1], b = src[i &+ 2], a = src[i &+ 3]
                        dst[o] = r &- previous.0
                        dst[o &+ 1] = g &- previous.1
                        dst[o &+ 2] = b &- previous.2
                        if components == 4 { dst[o &+ 3] = a &- previous.3 }
                        if predict { previous = (r, g, b, a) }
                    }
                }
            }
            try deflater.add(row, finish: y == image.height - 1) { try emit(chunk("IDAT", $0)) }
        }
        if let text = fingerprint?.pngTextChunk { try emit(chunk(text.type, text.data)) }
        try emit(chunk("IEND", []))
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var png: [UInt8] = []
        png.reserveCapacity(data.count + 12)
        png.appendBigEndian(UInt32(data.count))
        let typeBytes = Array(type.utf8)
        var crc = crc32(0, typeBytes, 4)
        if !data.isEmpty { crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) } }
        png += typeBytes
        png += data
        png.appendBigEndian(UInt32(crc))
        return png
    }
}

/// One zlib stream, fed in pieces; hands out compressed data `chunkSize` bytes at a time.
private struct Deflater: ~Copyable {
    private let stream: UnsafeMutablePointer<z_stream>
    private var output: [UInt8]
    /// Compressed bytes waiting in `output`.
    private var filled = 0

    init(level: Int32, chunkSize: Int) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard ck_deflate_init(stream, level) == Z_OK else {
            stream.deallocate()
            throw ClipKitError.internalFailure(path: "png", reason: "zlib could not start")
        }
        output = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input`; each time the output buffer fills (and at the end, with `finish`),
    /// hands the compressed bytes to `emit`.
    mutating func add(_ input: [UInt8], finish: Bool, emit: ([UInt8]) throws -> Void) throws {
        let stream = self.stream
        try input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = uInt(source.count)
            while true {
                let filled = self.filled
                let status = output.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.pointee.next_out = target.baseAddress! + filled
                    stream.pointee.avail_out = uInt(target.count - filled)
                    return CPNG.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw ClipKitError.internalFailure(path: "png", reason: "zlib failed (\(status))")
                }
                self.filled = output.count - Int(stream.pointee.avail_out)
                if self.filled == output.count || (status == Z_STREAM_END && self.filled > 0) {
                    try emit(Array(output.prefix(self.filled)))
                    self.filled = 0
                }
                if status == Z_STREAM_END { return }
                // Not finishing and the input is used up: the rest waits in the buffer for later rows.
                if !finish && stream.pointee.avail_in == 0 { return }
            }
        }
    }
}

private extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24)); append(UInt8(value >> 16 & 0xFF)); append(UInt8(value >> 8 & 0xFF)); append(UInt8(value & 0xFF))
    }
}
