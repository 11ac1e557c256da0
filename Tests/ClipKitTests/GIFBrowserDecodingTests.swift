// GIF decoding as browsers show it: tiles without graphic control, GIF87a animations, plain text, out-of-range indices.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct GIFBrowserDecodingTests {
    static func frames(_ name: String) throws -> [DisplayedFrame] {
        let animation = try GIFAnimation(url: Fixture.url("gif/\(name)"))
        var frames: [DisplayedFrame] = []
        while let frame = try animation.next() { frames.append(frame) }
        return frames
    }

    static func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
        Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 4])
    }

    /// Four tiles, each with its own colour table and no graphic control extension: one
    /// picture (it was four frames of 10 cs, the picture building up tile by tile).
    @Test func manyPalettesMakeOnePicture() throws {
        let frames = try Self.frames("many_palettes.gif")
        #expect(frames.count == 1)
        let canvas = try #require(frames.first).canvas
        #expect(Self.pixel(canvas, 5, 5) == [255, 0, 0, 255] && Self.pixel(canvas, 15, 5) == [0, 255, 0, 255])
        #expect(Self.pixel(canvas, 5, 15) == [0, 0, 255, 255] && Self.pixel(canvas, 15, 15) == [255, 255, 0, 255])
    }

    /// A GIF87a file has no extensions, so none of its images has a graphic control: still an
    /// animation, one frame per image, as browsers play it.
    @Test func gif87aImagesAreAnAnimation() throws {
        let frames = try Self.frames("gif87a_animation.gif")
        #expect(frames.map { Self.pixel($0.canvas, 10, 10) } == [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]])
    }

    /// The plain text extension is ignored (as Chromium and Firefox do: nothing is drawn) and the
    /// graphic control before it still times the next image; indices beyond a 2-entry colour
    /// table are drawn opaque black (Chromium's behaviour, see `Compositor`).
    @Test func plainTextIgnoredAndOutOfRangeIndicesBlack() throws {
        let frames = try Self.frames("plain_text_out_of_range.gif")
        #expect(frames.map(\.delay) == [30, 40])
        #expect(Self.pixel(frames[0].canvas, 10, 10) == [90, 90, 90, 255], "no text drawn over the image")
        let bars = (0..<4).map { Self.pixel(frames[1].canvas, $0 * 5 + 2, 10) }
        #expect(bars.filter { $0 == [0, 0, 0, 255] }.count == 2, "\(bars)")
        #expect(bars.allSatisfy { $0[3] == 255 })
        #expect(Set(bars.map { $0 }).count == 3, "two table colours and black: \(bars)")
    }

    @Test func framesGroupByDelayAndGraphicControl() {
        #expect(Compositor.displayedFrames(delays: [0, 0, 0, 0], controlled: [false, false, false, false]) == [0..<4])
        #expect(Compositor.displayedFrames(delays: [0, 0, 0, 0], controlled: [true, false, true, false]) == [0..<2, 2..<4])
        #expect(Compositor.displayedFrames(delays: [0, 0, 0], controlled: [true, true, true]) == [0..<1, 1..<2, 2..<3])
        #expect(Compositor.displayedFrames(delays: [0, 5, 0, 0], controlled: [false, true, false, false]) == [0..<2, 2..<4])
    }
}
