// PAL8 frames to RGBA: a palette's fourth byte is alpha only for codecs whose palettes have it.
@_weakLinked import CFFmpeg
import Testing
@testable import ClipKit

@Suite struct ScalerPaletteTests {
    /// A 4x2 PAL8 frame whose palette entries have a zero fourth byte (as AVI and MS Video 1
    /// headers store them), converted by a scaler that keeps or ignores palette alpha.
    static func convert(keepingAlpha: Bool) throws -> RGBAImage {
        try FFmpegLibraries.load()
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        let f = try #require(frame)
        f.pointee.format = AV_PIX_FMT_PAL8.rawValue
        f.pointee.width = 4
        f.pointee.height = 2
        #expect(av_frame_get_buffer(f, 0) >= 0)
        let indices = try #require(f.pointee.data.0), palette = try #require(f.pointee.data.1)
        for y in 0..<2 { for x in 0..<4 { indices[y * Int(f.pointee.linesize.0) + x] = UInt8(x) } }
        // Entries as native-endian 0xAARRGGBB with AA = 0: red, green, blue, white.
        let colours: [UInt32] = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0x00FF_FFFF]
        palette.withMemoryRebound(to: UInt32.self, capacity: 256) { entries in
            for (i, colour) in colours.enumerated() { entries[i] = colour }
        }
        let scaler = Scaler()
        scaler.keepsPaletteAlpha = keepingAlpha
        return try scaler.rgba(from: f, width: 4, height: 2)
    }

    @Test func videoPalettesAreOpaque() throws {
        #expect(!Scaler.palettesCarryAlpha(AV_CODEC_ID_MSVIDEO1) && !Scaler.palettesCarryAlpha(AV_CODEC_ID_RAWVIDEO))
        let image = try Self.convert(keepingAlpha: false)
        #expect(image.isOpaque)
        #expect(Array(image.pixels[0..<4]) == [255, 0, 0, 255] && Array(image.pixels[8..<12]) == [0, 0, 255, 255])
    }

    /// PNG's and GIF's palette alpha is real, and stays.
    @Test func imagePalettesKeepTheirAlpha() throws {
        #expect(Scaler.palettesCarryAlpha(AV_CODEC_ID_PNG) && Scaler.palettesCarryAlpha(AV_CODEC_ID_GIF))
        let image = try Self.convert(keepingAlpha: true)
        #expect(image.pixels[3] == 0)
    }
}
