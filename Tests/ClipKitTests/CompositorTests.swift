// Checks that composited GIF frames match the conformance suite's reference frames and the fixtures' model.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

/// The composited canvases of a GIF, grouped as `explode` groups them, with their summed delays.
func compositedFrames(of url: URL) throws -> [(image: RGBAImage, delay: Int, last: GIFFrame)] {
    let delays = try GIFDecoder(url: url).remainingDelays()
    let decoder = try GIFDecoder(url: url)
    var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
    var result: [(RGBAImage, Int, GIFFrame)] = []
    for group in Compositor.displayedFrames(delays: delays) {
        var delay = 0
        var last: GIFFrame?
        for _ in group {
            let frame = try #require(try decoder.next())
            compositor.draw(frame, decodedPixels: decoder.decodedPixelCount)
            delay += frame.delay
            last = frame
        }
        result.append((compositor.canvas, delay, try #require(last)))
    }
    return result
}

/// Pixels that differ, counting fully transparent pixels as equal whatever their colour.
func differingPixels(_ a: RGBAImage, _ b: RGBAImage) -> Int {
    guard a.width == b.width, a.height == b.height else { return Int.max }
    var count = 0
    for i in stride(from: 0, to: a.pixels.count, by: 4) {
        if a.pixels[i + 3] == 0 && b.pixels[i + 3] == 0 { continue }
        if a.pixels[i..<(i + 4)] != b.pixels[i..<(i + 4)] { count += 1 }
    }
    return count
}

/// Fixtures/gif/expected.json, written by make_gif_fixtures.py.
struct ExpectedGIF: Decodable {
    struct Frame: Decodable {
        var delay_cs: Int
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var disposal: String
        var transparent_index: Int?
        var interlaced: Bool
        var local_palette: Bool
    }
    var error: String?
    var canvas: [Int]?
    var loop_count: Int?
    var warns: Bool?
    var frames: [Frame]?

    static let all: [String: ExpectedGIF] = {
        let data = try! Data(contentsOf: Fixture.url("gif/expected.json"))
        return try! JSONDecoder().decode([String: ExpectedGIF].self, from: data)
    }()

    static var decodable: [String] { all.filter { $0.value.error == nil }.keys.sorted() }
}

@Suite struct CompositorTests {
    @Test(arguments: GIFDecoderTests.suiteNames)
    func conformanceFramesMatchTheReference(_ name: String) throws {
        let frames = try compositedFrames(of: Fixture.url("gif-test-suite/gifs/\(name).gif"))
        let references: [URL] = name.hasPrefix("static")
            ? [Fixture.url("gif-test-suite/gifs/frames/\(name).png")]
            : (0..<4).map { Fixture.url("gif-test-suite/gifs/frames/\(name)-\($0).png") }
        try #require(frames.count == references.count)
        for (frame, reference) in zip(frames, references) {
            let expected = try PNGReader.read(reference)
            #expect(differingPixels(frame.image, expected) == 0, "\(reference.lastPathComponent)")
        }
    }

    @Test(arguments: ExpectedGIF.decodable)
    func fixtureFramesMatchTheModel(_ file: String) throws {
        let expected = try #require(ExpectedGIF.all[file])
        let frames = try compositedFrames(of: Fixture.url("gif/\(file)"))
        let model = try #require(expected.frames)
        try #require(frames.count == model.count)
        for (n, (frame, want)) in zip(frames, model).enumerated() {
            let name = file.replacingOccurrences(of: ".gif", with: "-\(n).png")
            let reference = try PNGReader.read(Fixture.url("gif/expected/\(name)"))
            // Exact, transparent pixels included: the canvas starts and is cleared to (0,0,0,0).
            #expect(frame.image == reference, "\(name)")
            #expect(frame.delay == want.delay_cs)
            #expect([frame.last.left, frame.last.top, frame.last.width, frame.last.height] as [Int] == [want.left, want.top, want.width, want.height])
            #expect(frame.last.disposal.rawValue == want.disposal)
            #expect(frame.last.transparentIndex == want.transparent_index)
            #expect(frame.last.interlaced == want.interlaced)
            #expect((frame.last.localPalette != nil) == want.local_palette)
        }
    }

    @Test func zeroDelayImagesJoinTheNextFrame() {
        #expect(Compositor.displayedFrames(delays: [0, 0, 7, 0, 12, 0]) == [0..<3, 3..<5, 5..<6])
        #expect(Compositor.displayedFrames(delays: [10, 10]) == [0..<1, 1..<2])
        #expect(Compositor.displayedFrames(delays: [0, 0, 0]) == [0..<1, 1..<2, 2..<3])
        #expect(Compositor.displayedFrames(delays: []) == [])
    }

    @Test func palettesTransparencyAndDisposal() {
        // Two colours; index 5 is beyond the table (opaque black); transparent index 9 is beyond it (ignored).
        var compositor = Compositor(width: 3, height: 1, globalPalette: [10, 20, 30, 40, 50, 60])
        compositor.draw(GIFFrame(width: 3, height: 1, disposal: .background, transparentIndex: 9, indices: [1, 5, 9]))
        #expect(compositor.canvas.pixels == [40, 50, 60, 255, 0, 0, 0, 255, 0, 0, 0, 255])
        // Background disposal clears the rectangle to transparent, not the background colour.
        compositor.draw(GIFFrame(left: 2, width: 1, height: 1, disposal: .previous, transparentIndex: 0, localPalette: [1, 2, 3, 4, 5, 6], indices: [1]))
        #expect(compositor.canvas.pixels == [0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6, 255])
        // Restore-previous puts back what was under the last image; the transparent index leaves pixels alone.
        compositor.draw(GIFFrame(width: 2, height: 1, transparentIndex: 0, indices: [0, 1]))
        #expect(compositor.canvas.pixels == [0, 0, 0, 0, 40, 50, 60, 255, 0, 0, 0, 0])
    }

    @Test func missingPixelsAreNotDrawn() {
        var compositor = Compositor(width: 2, height: 2, globalPalette: [255, 0, 0, 0, 255, 0])
        compositor.draw(GIFFrame(width: 2, height: 2, indices: [1, 1, 1, 1]))
        compositor.draw(GIFFrame(width: 2, height: 2, indices: [0, 0, 0, 0]), decodedPixels: 3)
        #expect(compositor.canvas.pixels == [255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 0, 255, 0, 255])
    }
}
