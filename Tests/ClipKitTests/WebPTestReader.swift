// Test support: reads an animated WebP without the writer's code: RIFF chunks parsed here, each frame decoded by libavcodec's WebP decoder, composited as the WebP spec says.
@_weakLinked import CFFmpeg
import Foundation
@testable import ClipKit

/// An animated (or still) WebP as a viewer shows it: the canvas after each frame, and how long
/// each stays. FFmpeg 5.1 cannot decode animated WebP, so the container is walked here and
/// each frame's bitstream (`ALPH` + `VP8 `, or `VP8L`) is wrapped as a still WebP for
/// libavcodec's decoder; the canvas starts transparent (libwebp's and browsers' choice; the
/// `ANIM` background colour is a hint) and frames are blended and disposed per their flags.
struct DecodedWebP {
    var width = 0
    var height = 0
    /// The `ANIM` loop count; nil for a still image.
    var loopCount: Int?
    /// The `VP8X` alpha flag.
    var alphaFlag = false
    /// The canvas after each frame, and the frame's duration in milliseconds.
    var frames: [(image: RGBAImage, milliseconds: Int)] = []

    /// When each frame starts, in milliseconds.
    var starts: [Int] { frames.indices.map { i in frames[..<i].reduce(0) { $0 + $1.milliseconds } } }
    var totalMilliseconds: Int { frames.reduce(0) { $0 + $1.milliseconds } }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    init(url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count >= 12, Self.tag(bytes, 0) == "RIFF", Self.tag(bytes, 8) == "WEBP" else { throw Malformed(description: "not RIFF WEBP") }
        guard Int(Self.le(bytes, 4, 4)) + 8 == bytes.count else { throw Malformed(description: "RIFF size \(Self.le(bytes, 4, 4)) for \(bytes.count) bytes") }
        var canvas: [UInt8] = []
        var previous: (x: Int, y: Int, width: Int, height: Int, dispose: Bool)?
        var at = 12
        while at + 8 <= bytes.count {
            let tag = Self.tag(bytes, at), size = Int(Self.le(bytes, at + 4, 4)), payload = at + 8
            guard payload + size <= bytes.count else { throw Malformed(description: "chunk \(tag) past the end") }
            switch tag {
            case "VP8X":
                alphaFlag = bytes[payload] & 0x10 != 0
                width = Int(Self.le(bytes, payload + 4, 3)) + 1
                height = Int(Self.le(bytes, payload + 7, 3)) + 1
                canvas = [UInt8](repeating: 0, count: width * height * 4)
            case "ANIM":
                loopCount = Int(Self.le(bytes, payload + 4, 2))
            case "ANMF":
                let x = 2 * Int(Self.le(bytes, payload, 3)), y = 2 * Int(Self.le(bytes, payload + 3, 3))
                let w = Int(Self.le(bytes, payload + 6, 3)) + 1, h = Int(Self.le(bytes, payload + 9, 3)) + 1
                let duration = Int(Self.le(bytes, payload + 12, 3)), flags = bytes[payload + 15]
                guard x + w <= width, y + h <= height else { throw Malformed(description: "frame outside the canvas") }
                if let previous, previous.dispose {
                    Self.fill(&canvas, canvasWidth: width, x: previous.x, y: previous.y, width: previous.width, height: previous.height)
                }
                let image = try Self.decodeStill(Array(bytes[(payload + 16)..<(payload + size)]), width: w, height: h)
                Self.draw(image, on: &canvas, canvasWidth: width, x: x, y: y, blend: flags & 0x02 == 0)
                frames.append((RGBAImage(width: width, height: height, pixels: canvas), duration))
                previous = (x, y, w, h, flags & 0x01 != 0)
            case "VP8 ", "VP8L", "ALPH":
                // A still image: the chunks from here on are its bitstream (ALPH comes with VP8X).
                guard frames.isEmpty, loopCount == nil else { break }
                let image = try Self.decodeStill(Array(bytes[at...]), width: width > 0 ? width : nil, height: height > 0 ? height : nil)
                (width, height) = (image.width, image.height)
                frames = [(image, 0)]
            default:
                break
            }
            at = payload + size + (size & 1)
        }
        if frames.isEmpty { throw Malformed(description: "no frames") }
    }

    /// One frame's chunks decoded by libavcodec, wrapped as a still WebP (with a `VP8X` header
    /// when an `ALPH` chunk comes first).
    private static func decodeStill(_ chunks: [UInt8], width: Int?, height: Int?) throws -> RGBAImage {
        var body: [UInt8] = []
        if tag(chunks, 0) == "ALPH", let width, let height {
            body += Array("VP8X".utf8) + le32(10) + [0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        }
        body += chunks
        let file = Array("RIFF".utf8) + le32(4 + body.count) + Array("WEBP".utf8) + body

        try FFmpegLibraries.load()
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_WEBP) else { throw Malformed(description: "no WebP decoder") }
        let context = try CodecContext(codec: codec, path: "webp")
        guard avcodec_open2(context.pointer, codec, nil) >= 0 else { throw Malformed(description: "cannot open the WebP decoder") }
        let packet = try EncodedPacket(path: "webp")
        guard av_new_packet(packet.pointer, Int32(file.count)) >= 0 else { throw Malformed(description: "out of memory") }
        file.withUnsafeBufferPointer { packet.pointer.pointee.data.update(from: $0.baseAddress!, count: file.count) }
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let frame else { throw Malformed(description: "out of memory") }
        guard avcodec_send_packet(context.pointer, packet.pointer) >= 0, avcodec_receive_frame(context.pointer, frame) >= 0 else {
            throw Malformed(description: "libavcodec cannot decode a frame")
        }
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        if let width, let height, (w, h) != (width, height) { throw Malformed(description: "frame is \(w)x\(h), header says \(width)x\(height)") }
        return try Scaler().rgba(from: frame, width: w, height: h)
    }

    /// Draws `image` at (x, y): copied, or alpha-blended over the canvas (the spec's formula
    /// for non-premultiplied RGBA).
    private static func draw(_ image: RGBAImage, on canvas: inout [UInt8], canvasWidth: Int, x: Int, y: Int, blend: Bool) {
        for row in 0..<image.height {
            for column in 0..<image.width {
                let s = (row * image.width + column) * 4, d = ((y + row) * canvasWidth + x + column) * 4
                let sa = Double(image.pixels[s + 3]), da = Double(canvas[d + 3])
                if !blend || sa == 255 {
                    for c in 0..<4 { canvas[d + c] = image.pixels[s + c] }
                    continue
                }
                let a = sa + da * (1 - sa / 255)
                for c in 0..<3 {
                    let value = a == 0 ? 0 : (Double(image.pixels[s + c]) * sa + Double(canvas[d + c]) * da * (1 - sa / 255)) / a
                    canvas[d + c] = UInt8(min(255, value.rounded()))
                }
                canvas[d + 3] = UInt8(min(255, a.rounded()))
            }
        }
    }

    private static func fill(_ canvas: inout [UInt8], canvasWidth: Int, x: Int, y: Int, width: Int, height: Int) {
        for row in y..<(y + height) {
            let start = (row * canvasWidth + x) * 4
            for i in start..<(start + width * 4) { canvas[i] = 0 }
        }
    }

    private static func tag(_ bytes: [UInt8], _ at: Int) -> String {
        bytes.count >= at + 4 ? String(decoding: bytes[at..<(at + 4)], as: UTF8.self) : ""
    }

    private static func le(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt32 {
        (0..<count).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }

    private static func le24(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(value >> (8 * $0) & 0xFF) } }
    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
}

/// The top-level boxes of an MP4 file, in order (type and size).
func mp4TopLevelBoxes(_ url: URL) throws -> [(type: String, size: Int)] {
    let bytes = [UInt8](try Data(contentsOf: url))
    var boxes: [(String, Int)] = []
    var at = 0
    while at + 8 <= bytes.count {
        var size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
        let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
        if size == 1, at + 16 <= bytes.count { size = bytes[(at + 8)..<(at + 16)].reduce(0) { $0 << 8 | Int($1) } }
        if size == 0 { size = bytes.count - at }
        guard size >= 8 else { break }
        boxes.append((type, size))
        at += size
    }
    return boxes
}
