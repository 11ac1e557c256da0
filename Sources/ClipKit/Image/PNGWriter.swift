// Encodes RGBAImage as PNG: chunks written here, pixels compressed with zlib. No timestamps or
// text chunks, so the same pixels always give the same bytes.
import CPNG
import Foundation

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

    /// PNG bytes for `image`, 8-bit, RGB (alpha dropped) or RGBA.
    public static func encode(_ image: RGBAImage, channels: Channels = .rgba, filter: Filter = .sub) throws -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw ClipKitError.internalFailure(path: "png", reason: "cannot write an empty image")
        }
        let components = channels == .rgba ? 4 : 3
        let rowBytes = image.width * components
        // Each row: its filter type, then the row's bytes, predicted by that filter.
        let predict = filter == .sub
        var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * image.height)
        image.pixels.withUnsafeBufferPointer { src in
            filtered.withUnsafeMutableBufferPointer { dst in
                for y in 0..<image.height {
                    let out = y * (rowBytes + 1)
                    dst[out] = filter.rawValue
                    var previous: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                    for x in 0..<image.width {
                        let i = (y * image.width + x) * 4, o = out + 1 + x * components
                        let r = src[i], g = src[i + 1], b = src[i + 2], a = src[i + 3]
                        dst[o] = r &- previous.0
                        dst[o + 1] = g &- previous.1
                        dst[o + 2] = b &- previous.2
                        if components == 4 { dst[o + 3] = a &- previous.3 }
                        if predict { previous = (r, g, b, a) }
                    }
                }
            }
        }
        var png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [8, channels == .rgba ? 6 : 2, 0, 0, 0]  // bit depth, colour type, compression, filter, interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", try deflate(filtered), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// Writes `image` to `url` atomically (temp file + rename).
    public static func write(_ image: RGBAImage, to url: URL, channels: Channels = .rgba, filter: Filter = .sub) throws {
        try write(image, to: url, channels: channels, filter: filter, budget: nil)
    }

    /// `budget` bounds the bytes written (`--max-output`): nothing is written past it.
    static func write(_ image: RGBAImage, to url: URL, channels: Channels, filter: Filter, budget: ByteBudget?) throws {
        let bytes = try encode(image, channels: channels, filter: filter)
        try AtomicFile.write(bytes, to: url, budget: budget)
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        png.appendBigEndian(UInt32(data.count))
        let typeBytes = Array(type.utf8)
        var crc = crc32(0, typeBytes, 4)
        if !data.isEmpty { crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) } }
        png += typeBytes
        png += data
        png.appendBigEndian(UInt32(crc))
    }

    private static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard ck_deflate_init(&stream, compressionLevel) == Z_OK else {
            throw ClipKitError.internalFailure(path: "png", reason: "zlib could not start")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status: Int32 = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return CPNG.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else {
            throw ClipKitError.internalFailure(path: "png", reason: "zlib failed (\(status))")
        }
        return Array(output.prefix(Int(stream.total_out)))
    }
}

private extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24)); append(UInt8(value >> 16 & 0xFF)); append(UInt8(value >> 8 & 0xFF)); append(UInt8(value & 0xFF))
    }
}
