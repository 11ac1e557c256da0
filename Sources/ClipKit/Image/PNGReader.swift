// Decodes a PNG file into an RGBAImage with libpng's simplified API.
import CPNG
import Foundation

/// Reads PNG files into `RGBAImage`s, refusing sizes over a pixel limit before allocating.
public enum PNGReader {
    /// Default limit on pixels, checked from the header before the image is allocated.
    public static let defaultMaxPixels = 100_000_000

    public static func read(_ url: URL, maxPixels: Int = defaultMaxPixels) throws -> RGBAImage {
        try withHeader(of: url) { png in
            let width = Int(png.width), height = Int(png.height)
            let (area, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || area > maxPixels {
                throw ClipKitError.limitExceeded(path: url.path, what: "image size \(width)x\(height)", limit: "\(maxPixels) pixels", option: "--max-pixels")
            }
            png.format = ck_png_format_rgba()
            // A 16-bit PNG without gAMA or sRGB is sRGB-encoded, as ffmpeg, browsers and every
            // tool that writes one have it; libpng's simplified API takes it for linear light,
            // so grey 32 of 255 came out 99 (the thumbnails, read by FFmpeg, were right).
            png.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let ok = pixels.withUnsafeMutableBytes { buffer in
                png_image_finish_read(&png, nil, buffer.baseAddress, Int32(width * 4), nil)
            }
            guard ok != 0 else {
                throw ClipKitError.corrupt(path: url.path, reason: "PNG data: \(message(&png))")
            }
            return RGBAImage(width: width, height: height, pixels: pixels)
        }
    }

    /// Whether the header allows transparency (an alpha channel or a tRNS chunk), without decoding pixels.
    static func mayHaveAlpha(_ url: URL) throws -> Bool {
        try withHeader(of: url) { png in png.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0 }
    }

    /// Bytes a pixel takes in the file's own format (a decoder's output before any conversion):
    /// one per channel, two at 16 bits; one for a palette index. From the header only.
    static func sampleBytes(of url: URL) throws -> Int {
        try withHeader(of: url) { png in
            let format = png.format
            if format & UInt32(PNG_FORMAT_FLAG_COLORMAP) != 0 { return 1 }
            let channels = (format & UInt32(PNG_FORMAT_FLAG_COLOR) != 0 ? 3 : 1) + (format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0 ? 1 : 0)
            return channels * (format & UInt32(PNG_FORMAT_FLAG_LINEAR) != 0 ? 2 : 1)
        }
    }

    /// The width and height from the PNG header, without decoding pixels.
    public static func size(of url: URL) throws -> (Int, Int) {
        try withHeader(of: url) { png in (Int(png.width), Int(png.height)) }
    }

    /// Whether `url` is an animated PNG (APNG): a PNG whose `acTL` chunk comes before its first
    /// `IDAT`, where the APNG specification puts it. Such a file is an animation (FFmpeg's apng
    /// demuxer reads its frames and delays), not one still frame. Reads the chunk headers only,
    /// skipping their data, at most `chunksScanned` of them; false for a file that is not a
    /// regular file, not a PNG, or ends before either chunk.
    public static func isAnimated(_ url: URL) -> Bool {
        walkChunks(url, limit: chunksScanned) { type, _, _ in
            type == "acTL" ? .stop(true) : type == "IDAT" ? .stop(false) : .next
        } ?? false
    }

    /// How many times an animated PNG plays, from its `acTL` chunk (0 = forever); nil when `url`
    /// is not an animated PNG (`isAnimated`). Reads chunk headers and the animation control only.
    public static func plays(_ url: URL) -> Int? {
        walkChunks(url, limit: chunksScanned) { type, length, handle -> ChunkStep<Int?> in
            switch type {
            case "acTL":
                guard length == 8, let control = try? handle.read(upToCount: 8), control.count == 8 else { return .stop(nil) }
                return .stop([UInt8](control)[4..<8].reduce(0) { $0 << 8 | Int($1) })
            case "IDAT":
                return .stop(nil)
            default:
                return .next
            }
        } ?? nil
    }

    /// How long each frame of an animated PNG is shown, in seconds, from its `fcTL` chunks (a
    /// denominator of 0 means 100, as the APNG specification says); nil when the file is not a
    /// regular PNG file, has no frame, or holds more than `framesListed` frames or
    /// `chunksListed` chunks before its end (the caller then samples it at a rate of its own).
    /// Reads chunk headers and the frame controls only.
    public static func frameDelays(_ url: URL) -> [Double]? {
        var delays: [Double] = []
        let ended = walkChunks(url, limit: chunksListed) { type, length, handle -> ChunkStep<Bool> in
            switch type {
            case "fcTL":
                guard length == 26, let control = try? handle.read(upToCount: 26), control.count == 26 else { return .stop(false) }
                let bytes = [UInt8](control)
                let numerator = Int(bytes[20]) << 8 | Int(bytes[21]), denominator = Int(bytes[22]) << 8 | Int(bytes[23])
                delays.append(Double(numerator) / Double(denominator == 0 ? 100 : denominator))
                return delays.count <= Self.framesListed ? .next : .stop(false)
            case "IEND":
                return .stop(true)
            default:
                return .next
            }
        }
        return ended == true && !delays.isEmpty ? delays : nil
    }

    /// What a chunk walk does after a chunk: go on, or stop with a result.
    private enum ChunkStep<T> {
        case next
        case stop(T)
    }

    /// Walks the chunks of the regular PNG file `url`, at most `limit` of them, handing `visit`
    /// each one's type and data length, with the file positioned at its data (which `visit` may
    /// read): what `visit` stops with; nil for a file that is not a regular PNG file, or that
    /// ends, or passes `limit` chunks, before `visit` stops.
    private static func walkChunks<T>(_ url: URL, limit: Int, _ visit: (String, Int, FileHandle) -> ChunkStep<T>) -> T? {
        guard let (handle, size) = FileSystemPath.openRegularFile(url.path) else { return nil }
        defer { try? handle.close() }
        guard let signature = try? handle.read(upToCount: 8), [UInt8](signature) == Self.signature else { return nil }
        var offset = 8
        for _ in 0..<limit {
            guard offset + 8 <= size, (try? handle.seek(toOffset: UInt64(offset))) != nil,
                  let data = try? handle.read(upToCount: 8), data.count == 8 else { return nil }
            let header = [UInt8](data)
            let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
            if case .stop(let result) = visit(String(decoding: header[4..<8], as: UTF8.self), length, handle) { return result }
            // Length, type and CRC around the data; a length is at most 2^31 - 1.
            offset += 12 + length
        }
        return nil
    }

    /// Frames and chunks `frameDelays` lists at most.
    static let framesListed = 10_000
    static let chunksListed = 100_000

    /// The eight bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Chunks `isAnimated` reads before it gives up (a PNG's header chunks are a handful).
    static let chunksScanned = 64

    /// Opens `url`, reads its header, and hands the libpng state to `body`; freed afterwards.
    private static func withHeader<T>(of url: URL, _ body: (inout png_image) throws -> T) throws -> T {
        try InputFile.check(url.path)
        var png = png_image()
        png.version = png_uint_32(ck_png_image_version())
        guard png_image_begin_read_from_file(&png, FileSystemPath.cString(url.path)) != 0 else {
            throw ClipKitError.notMedia(path: url.path, reason: "not a PNG: \(message(&png))")
        }
        defer { png_image_free(&png) }
        return try body(&png)
    }

    private static func message(_ png: inout png_image) -> String {
        withUnsafeBytes(of: &png.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
