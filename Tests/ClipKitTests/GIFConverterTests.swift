// Video to GIF, checked by decoding the written file with giflib: frames, delays, loop, size, pixels.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct GIFConverterTests {
    func convert(_ name: String, _ configure: (inout GIFOptions) -> Void = { _ in }) throws -> (GIFResult, GiflibReference, URL) {
        var options = GIFOptions()
        configure(&options)
        let out = Fixture.scratchDirectory().appendingPathComponent("out.gif")
        let result = try GIFConverter(options: options).convert(video: Fixture.url("video/\(name)"), to: out)
        return (result, try GiflibReference(url: out), out)
    }

    /// A GIF whose later images use a transparent index only for the pixels that did not change
    /// (as optimisers and ffmpeg write them), over an opaque first image covering the canvas, is
    /// opaque on screen: re-encoded with change rectangles, as a video is, instead of frame by
    /// frame whole (2.9 times its source's bytes at 50 fps); so is one of whole opaque frames,
    /// each clearing the last. A first image that is transparent, or restored away, or a clear
    /// that the next image does not cover, still makes a GIF transparent.
    @Test func anOptimisedGIFIsOpaqueOnScreen() throws {
        let dir = Fixture.scratchDirectory()
        // 96x64: above the size where small pictures share one palette anyway (`SharedPalettePool`).
        let (w, h) = (96, 64)
        var rgb: [UInt8] = []
        for k in 0..<16 { rgb += [UInt8(k * 16), UInt8(255 - k * 16), UInt8(k * 8)] }
        let palette = Palette(rgb: rgb)
        func write(_ name: String, firstTransparent: Int? = nil, firstDisposal: GIFDisposal = .none,
                   firstTable: [UInt8]? = nil) throws -> URL {
            let url = dir.appendingPathComponent(name)
            let encoder = try GIFEncoder(url: url, width: w, height: h, globalPalette: palette, loopCount: 0)
            // Colours 0-11: 12-15 are not drawn by the first image.
            try encoder.add(GIFFrame(width: w, height: h, delay: 10, disposal: firstDisposal, transparentIndex: firstTransparent,
                                     localPalette: firstTable, indices: (0..<w * h).map { UInt8($0 % w / 8) }))
            // An 8x8 square of colour 15 moving right, in a 16x16 image whose other pixels are the
            // transparent index 14 (a colour of the first image).
            for k in 0..<5 {
                var indices = [UInt8](repeating: 14, count: 256)
                for y in 4..<12 { for x in 4..<12 { indices[y * 16 + x] = 15 } }
                try encoder.add(GIFFrame(left: 4 * k, top: 8, width: 16, height: 16, delay: 10, disposal: .none, transparentIndex: 14, indices: indices))
            }
            try encoder.finish()
            return url
        }
        let optimised = try write("optimised.gif")
        #expect(try !GIFDecoder(url: optimised).scan().mayBeTransparent)
        // Whole opaque frames, each clearing the last to the background: opaque on screen too;
        // a clear that a smaller image does not cover shows.
        for (name, nextWidth, transparent) in [("whole.gif", w, false), ("cleared.gif", w / 2, true)] {
            let url = dir.appendingPathComponent(name)
            let encoder = try GIFEncoder(url: url, width: w, height: h, globalPalette: palette, loopCount: 0)
            for k in 0..<3 {
                let width = k == 0 ? w : nextWidth
                try encoder.add(GIFFrame(width: width, height: h, delay: 10, disposal: .background,
                                         indices: (0..<width * h).map { UInt8(($0 % width / 8 + k) % 16) }))
            }
            try encoder.finish()
            #expect(try GIFDecoder(url: url).scan().mayBeTransparent == transparent, "\(name)")
        }
        #expect(try GIFDecoder(url: write("clear.gif", firstTransparent: 3)).scan().mayBeTransparent)
        // As ffmpeg's paletteuse writes: a transparent index in every image, the first's not drawn
        // (an opaque picture), and the first image's table a copy of the global one.
        let reserved = try write("reserved.gif", firstTransparent: 13, firstTable: palette.rgb)
        let reservedScan = try GIFDecoder(url: reserved).scan()
        #expect(!reservedScan.mayBeTransparent && reservedScan.localPaletteCount == 1 && reservedScan.ownPaletteCount == 0)
        #expect(try GIFDecoder(url: write("restored.gif", firstDisposal: .previous)).scan().mayBeTransparent)

        let out = dir.appendingPathComponent("out.gif")
        for input in [optimised, reserved] {
            _ = try GIFConverter().convert(video: input, to: out)
            let (source, written) = (try GiflibReference(url: input), try GiflibReference(url: out))
            #expect(written.canvases == source.canvases, "every frame as the source shows it (16 colours: exact)")
            #expect(written.delays == source.delays)
            // After the first, each image is the square's change rectangle, not the whole canvas.
            #expect(written.images.dropFirst().allSatisfy { $0.width * $0.height < w * h / 4 }, "\(written.images.map { ($0.width, $0.height) })")
            // Its images all use the global table, at its own size: one table for the GIF
            // (`--palette auto`), not one a frame; with --palette per-frame, tables of their own.
            #expect(written.hasGlobalTable && written.images.allSatisfy { !$0.hasLocalTable }, "\(input.lastPathComponent)")
        }
        var perFrame = GIFOptions()
        perFrame.palette = .perFrame
        _ = try GIFConverter(options: perFrame).convert(video: optimised, to: out)
        #expect(try GiflibReference(url: out).images.dropFirst().contains(where: \.hasLocalTable))
    }

    /// A GIF whose images read their indices against tables of their own, 16 colours in all:
    /// one table serves them (`--palette auto`), the frames as exact as with a table each. A
    /// transparent one (`TransparentChain`) uses it too.
    @Test func oneTableServesAGIFOfFewColoursInAll() throws {
        let dir = Fixture.scratchDirectory()
        let (w, h) = (96, 64)
        var rgb: [UInt8] = []
        for k in 0..<16 { rgb += [UInt8(k * 16), UInt8(255 - k * 16), UInt8(k * 8)] }
        // The first image's table lists the same colours backwards (as ffmpeg's paletteuse gives
        // the first image a table of its own).
        let backwards = stride(from: 15, through: 0, by: -1).flatMap { rgb[($0 * 3)..<($0 * 3 + 3)] }
        for (name, transparentFirst) in [("tables.gif", false), ("transparent_tables.gif", true)] {
            let url = dir.appendingPathComponent(name)
            let encoder = try GIFEncoder(url: url, width: w, height: h, globalPalette: Palette(rgb: rgb), loopCount: 0)
            // Colour k of the global table is entry 15 - k of the first image's; its entry 15
            // (colour 0) is its transparent index when `transparentFirst`, drawn at the left.
            try encoder.add(GIFFrame(width: w, height: h, delay: 10, disposal: .none, transparentIndex: transparentFirst ? 15 : nil,
                                     localPalette: backwards, indices: (0..<w * h).map { UInt8(15 - $0 % w / 8) }))
            for k in 0..<4 {
                var indices = [UInt8](repeating: 14, count: 256)
                for y in 4..<12 { for x in 4..<12 { indices[y * 16 + x] = UInt8(12 + k % 2) } }
                try encoder.add(GIFFrame(left: 20 + 8 * k, top: 8, width: 16, height: 16, delay: 10, disposal: .none,
                                         transparentIndex: 14, indices: indices))
            }
            try encoder.finish()
            let scan = try GIFDecoder(url: url).scan()
            #expect(scan.ownPaletteCount == 1 && scan.mayBeTransparent == transparentFirst, "\(name)")
            let out = dir.appendingPathComponent("out_" + name)
            _ = try GIFConverter().convert(video: url, to: out)
            let (source, written) = (try GiflibReference(url: url), try GiflibReference(url: out))
            let differing = zip(written.canvases, source.canvases).filter { $0 != $1 }.count
            #expect(written.canvases.count == source.canvases.count && differing == 0, "\(name): every frame as the source shows it")
            #expect(written.hasGlobalTable && written.images.allSatisfy { !$0.hasLocalTable }, "\(name): one table")
        }
    }

    /// Frames with transparency are drawn over the last where no pixel turns transparent (only
    /// the change rectangle), and the frame before one where pixels do clears a rectangle that
    /// takes them in: a picture built up block by block, then a block moving over transparency,
    /// comes out as the source shows it, in small rectangles. (Before, every frame was written
    /// whole, each clearing the last.)
    @Test func transparentFramesDrawOnlyWhatChanges() throws {
        let dir = Fixture.scratchDirectory()
        let (w, h) = (96, 64)
        var rgb: [UInt8] = []
        for k in 0..<16 { rgb += [UInt8(k * 16), UInt8(255 - k * 16), UInt8(k * 8)] }
        let url = dir.appendingPathComponent("built.gif")
        let encoder = try GIFEncoder(url: url, width: w, height: h, globalPalette: Palette(rgb: rgb), loopCount: 0)
        // Transparent index 15. Five 8x8 blocks added one a frame, each image only its block.
        for k in 0..<5 {
            try encoder.add(GIFFrame(left: 8 + 12 * k, top: 8, width: 8, height: 8, delay: 10, disposal: .none, transparentIndex: 15,
                                     indices: [UInt8](repeating: UInt8(k + 1), count: 64)))
        }
        // Then one block moving right: whole images, each cleared (the first is drawn over the
        // blocks, which the source's last block image keeps).
        for k in 0..<3 {
            var indices = [UInt8](repeating: 15, count: w * h)
            for y in 40..<48 { for x in (10 + 20 * k)..<(18 + 20 * k) { indices[y * w + x] = 9 } }
            try encoder.add(GIFFrame(width: w, height: h, delay: 10, disposal: .background, transparentIndex: 15, indices: indices))
        }
        try encoder.finish()
        #expect(try GIFDecoder(url: url).scan().mayBeTransparent)
        let out = dir.appendingPathComponent("out.gif")
        _ = try GIFConverter().convert(video: url, to: out)
        let (source, written) = (try GiflibReference(url: url), try GiflibReference(url: out))
        #expect(written.width == w && written.height == h)
        #expect(written.canvases.count == source.canvases.count && written.canvases == source.canvases,
                "every frame as the source shows it, transparency included")
        #expect(written.delays == source.delays)
        let images = written.images
        // The first covers the canvas; the blocks after it, the moving one's first too, are their
        // own 8x8 rectangles drawn over it (disposal none).
        let shapes = "\(images.map { ($0.left, $0.top, $0.width, $0.height, $0.disposal) })"
        #expect(images.count == 8 && images[0].width == w && images[0].height == h, "\(shapes)")
        #expect(images[1...4].allSatisfy { $0.width == 8 && $0.height == 8 && $0.disposal == 1 }, "\(shapes)")
        // From then on pixels turn transparent in each next frame: each frame clears (disposal
        // background) its rectangle widened to take them in: the first moving block's takes in
        // the five built ones, the next is its own 8x8; the last clears the whole canvas, before
        // the loop starts again.
        #expect(images.count == 8 && images[5...].allSatisfy { $0.disposal == 2 }, "\(shapes)")
        #expect(images.count == 8 && (images[5].left, images[5].top, images[5].width, images[5].height) == (8, 8, 56, 40), "\(shapes)")
        #expect(images.count == 8 && (images[6].left, images[6].top, images[6].width, images[6].height) == (30, 40, 8, 8), "\(shapes)")
        #expect(images.count == 8 && images[7].width == w && images[7].height == h, "\(shapes)")

        // A clear shows only once an image follows: a frame that draws nothing after a clear
        // (a hole cut in an opaque picture) is written, not merged into the one before.
        let hole = dir.appendingPathComponent("hole.gif")
        let holeEncoder = try GIFEncoder(url: hole, width: w, height: h, globalPalette: Palette(rgb: rgb), loopCount: 0)
        try holeEncoder.add(GIFFrame(width: w, height: h, delay: 10, disposal: .none, indices: (0..<w * h).map { UInt8($0 % w / 8) }))
        try holeEncoder.add(GIFFrame(left: 10, top: 10, width: 8, height: 8, delay: 10, disposal: .background,
                                     indices: [UInt8](repeating: 13, count: 64)))
        try holeEncoder.add(GIFFrame(width: 1, height: 1, delay: 30, disposal: .none, transparentIndex: 15, indices: [15]))
        try holeEncoder.finish()
        _ = try GIFConverter().convert(video: hole, to: out)
        let (holeSource, holeWritten) = (try GiflibReference(url: hole), try GiflibReference(url: out))
        #expect(holeWritten.canvases == holeSource.canvases && holeWritten.delays == holeSource.delays, "\(holeWritten.delays)")
    }

    @Test func tenFPSFromThirtyPicksByTimestamp() throws {
        let (result, gif, _) = try convert("counter.mp4")
        #expect(gif.width == 160 && gif.height == 120)
        #expect(gif.images.count == 40)
        #expect(gif.delays.allSatisfy { $0 == 10 })
        #expect(gif.delays.reduce(0, +) == 400, "GIF lasts as long as the 4 s clip")
        #expect(result.durationCentiseconds == 400 && result.frameCount == 40)
        #expect(gif.loopCount == 0)
        for (k, canvas) in gif.canvases.enumerated() {
            #expect(counterFrame(canvas.pixel(x: 80, y: 60)) == 3 * k, "GIF frame \(k)")
        }
    }

    @Test func thirtyFPSDelaysRoundCumulatively() throws {
        let (_, gif, _) = try convert("counter.mp4") { $0.fps = 30 }
        #expect(gif.images.count == 120)
        #expect(Array(gif.delays.prefix(6)) == [3, 4, 3, 3, 4, 3])
        #expect(gif.delays.reduce(0, +) == 400)
        #expect(gif.delays.allSatisfy { $0 >= 2 })
    }

    @Test func variableFrameRateMergesRepeatsIntoRealDelays() throws {
        // Frames at 0, .1, .2, .5, .6, 1.0, 1.1, 1.2, 1.5, 1.9, end 2.0: ticks that repeat a frame merge.
        let (_, gif, _) = try convert("vfr.mkv")
        #expect(gif.delays == [10, 10, 30, 10, 40, 10, 10, 30, 40, 10])
        for (n, canvas) in gif.canvases.enumerated() {
            #expect(counterFrame(canvas.pixel(x: 5, y: 5)) == n)
        }
    }

    @Test func trimAndSpeed() throws {
        let (_, trimmed, _) = try convert("counter.mp4") { $0.start = 1; $0.end = 2.5 }
        #expect(trimmed.images.count == 15)
        #expect(trimmed.delays.reduce(0, +) == 150)
        #expect(counterFrame(trimmed.canvases[0].pixel(x: 1, y: 1)) == 30)
        // Twice as fast: frames are dropped, delays stay 10 cs.
        let (_, fast, _) = try convert("counter.mp4") { $0.speed = 2 }
        #expect(fast.images.count == 20)
        #expect(fast.delays.allSatisfy { $0 == 10 })
        #expect(counterFrame(fast.canvases[3].pixel(x: 1, y: 1)) == 18)
    }

    @Test func loopExtension() throws {
        #expect(try convert("vfr.mkv") { $0.loopCount = 3 }.1.loopCount == 3)
        #expect(try convert("vfr.mkv") { $0.loopCount = nil }.1.loopCount == nil)
    }

    @Test func rotatedSourceGivesPortraitCanvas() throws {
        let (_, gif, _) = try convert("rotated90.mov") { $0.size = .original }
        #expect(gif.width == 240 && gif.height == 320)
        let tl = gif.canvases[0].pixel(x: 20, y: 20)
        #expect(tl.b > 200 && tl.r < 60, "top-left is the stored bottom-left (blue): \(tl)")
    }

    @Test func realVideoLooksLikeTheSourceAndStoresOnlyChanges() throws {
        let (result, gif, _) = try convert("motion.mp4")
        #expect(gif.width == 320 && gif.height == 180)
        let reader = try VideoReader(url: Fixture.url("video/motion.mp4"))
        let source = try reader.frames(options: FrameReadOptions(fps: 10, size: .width(480)))
        var k = 0, worst = 99.0
        while let frame = try source.next() {
            worst = min(worst, psnr(frame.image, gif.canvases[k]))
            k += 1
        }
        #expect(k == gif.canvases.count)
        #expect(worst > 30, "worst frame PSNR \(worst) dB")
        // After the first frame, images are sub-rectangles or use transparency for still pixels.
        let later = gif.images.dropFirst()
        #expect(later.allSatisfy { $0.transparent != nil })
        #expect(later.contains { $0.width * $0.height < 320 * 180 })
        #expect(result.bytes < 400_000)
    }

    @Test func sameInputSameBytes() throws {
        let (_, _, a) = try convert("motion.mp4") { $0.fps = 5 }
        let (_, _, b) = try convert("motion.mp4") { $0.fps = 5 }
        #expect(try Data(contentsOf: a) == Data(contentsOf: b))
    }

    @Test func globalPaletteIsTheOnlyTable() throws {
        let (_, global, _) = try convert("motion.mp4") { $0.palette = .global; $0.fps = 5 }
        #expect(global.hasGlobalTable && global.images.allSatisfy { !$0.hasLocalTable })
    }

    /// `--colors N`, a power of two from 8 up, is the table's entries, the transparent one
    /// included (as ffmpeg's palettegen counts with reserve_transparent): a frame drawn over the
    /// last has N-1 colours in a table of N, not N in one of 2N with codes a bit wider. Other
    /// counts, and 2 or 4, keep N colours beside the transparent entry.
    @Test func colorsCountTheTransparentEntry() throws {
        for (colors, most, table) in [(128, 127, 128), (64, 63, 64), (100, 100, 128), (4, 4, 8)] {
            let (_, gif, _) = try convert("motion.mp4") { $0.fps = 5; $0.colors = colors; $0.changeThreshold = 0 }
            #expect(gif.images[0].transparent == nil && gif.images[0].tableSize == 1 << (Int.bitWidth - (colors - 1).leadingZeroBitCount),
                    "\(colors): the first frame's table \(gif.images[0].tableSize)")
            let later = gif.images.dropFirst()
            #expect(later.count == 14 && later.allSatisfy { $0.transparent != nil && $0.tableSize == table },
                    "\(colors): tables \(later.map(\.tableSize)), transparent \(later.map(\.transparent))")
            // The transparent entry follows the colours.
            #expect(later.allSatisfy { $0.transparent! <= most }, "\(colors): \(later.map(\.transparent))")
            #expect(later.contains { $0.transparent! == most }, "\(colors): some frame takes every colour it may")
        }
    }

    @Test func ditherOptionDecidesThePixels() throws {
        // The first frame is written whole with a palette of its own colours, so it must be exactly
        // what that method's Ditherer makes of the decoded source frame: an ignored or mixed-up
        // option shows as a wrong canvas, and each method must give a different file.
        let reader = try VideoReader(url: Fixture.url("video/motion.mp4"))
        let first = try #require(try reader.frames(options: FrameReadOptions(fps: 5, size: .width(480))).next()).image
        let palette = Quantizer(maxColors: 64).palette(for: first)
        #expect(palette.count == 64, "the frame has more colours than the palette: dithering has work to do")
        var files: [DitherMethod: Data] = [:]
        for method in DitherMethod.allCases {
            let (_, gif, url) = try convert("motion.mp4") { $0.dither = method; $0.fps = 5; $0.colors = 64 }
            #expect(gif.images.count == 15, "\(method)")
            files[method] = try Data(contentsOf: url)
            var ditherer = Ditherer(palette: palette, method: method)
            let indices = ditherer.indices(for: first, rect: PixelRect(x: 0, y: 0, width: first.width, height: first.height),
                                           mask: nil, transparentIndex: nil)
            var expected = first
            for (i, index) in indices.enumerated() {
                let c = palette.color(Int(index))
                expected.pixels[i * 4] = c.r; expected.pixels[i * 4 + 1] = c.g; expected.pixels[i * 4 + 2] = c.b; expected.pixels[i * 4 + 3] = 255
            }
            #expect(gif.canvases[0] == expected, "\(method): \(differingPixels(gif.canvases[0], expected)) pixels differ")
        }
        let methods = DitherMethod.allCases
        for a in methods.indices {
            for b in methods.indices where a < b {
                #expect(files[methods[a]] != files[methods[b]], "\(methods[a]) and \(methods[b]) wrote the same GIF")
            }
        }
    }

    @Test func refusesBadOptionsAndLeavesNoFile() throws {
        for bad: (inout GIFOptions) -> Void in [{ $0.fps = 0 }, { $0.fps = 60 }, { $0.fps = -1 }, { $0.colors = 1 }, { $0.speed = 0 }] {
            #expect(throws: ClipKitError.self) { try convert("counter.mp4", bad) }
        }
        let dir = Fixture.scratchDirectory()
        let out = dir.appendingPathComponent("x.gif")
        #expect(throws: ClipKitError.startPastEnd(path: Fixture.url("video/counter.mp4").path, start: 10, duration: 4)) {
            var options = GIFOptions()
            options.start = 10
            _ = try GIFConverter(options: options).convert(video: Fixture.url("video/counter.mp4"), to: out)
        }
        #expect(throws: ClipKitError.self) {
            _ = try GIFConverter().convert(video: Fixture.url("video/truncated.mp4"), to: out)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no partial or temp file")
    }

    @Test func imagesAssembleLosslessly() throws {
        // Two 4x2 frames with transparency: they round-trip exactly, with their delays.
        let dir = Fixture.scratchDirectory()
        let a = RGBAImage(width: 4, height: 2, pixels: (0..<8).flatMap { i -> [UInt8] in i == 0 ? [0, 0, 0, 0] : [UInt8(i * 30), 10, 200, 255] })
        let b = RGBAImage(width: 4, height: 2, pixels: (0..<8).flatMap { i -> [UInt8] in i == 7 ? [0, 0, 0, 0] : [1, UInt8(i * 30), 2, 255] })
        try PNGWriter.write(a, to: dir.appendingPathComponent("a.png"))
        try PNGWriter.write(b, to: dir.appendingPathComponent("b.png"))
        let out = dir.appendingPathComponent("ab.gif")
        _ = try GIFConverter().convert(images: [dir.appendingPathComponent("a.png"), dir.appendingPathComponent("b.png")], delays: [7, 13], to: out)
        let gif = try GiflibReference(url: out)
        #expect(gif.delays == [7, 13])
        #expect(gif.canvases[0] == a)
        // The second canvas: b drawn after a was cleared (disposal background).
        var cleared = RGBAImage(width: 4, height: 2)
        for i in 0..<8 where b.pixels[i * 4 + 3] == 255 {
            for k in 0..<4 { cleared.pixels[i * 4 + k] = b.pixels[i * 4 + k] }
        }
        #expect(gif.canvases[1] == cleared)
    }

    /// Frames of a still colour gradient with noise (+-`noise` levels, new each frame) and a
    /// moving square: what a still camera shot gives.
    static func stillShot(frames: Int, noise amplitude: Int, width: Int = 96, height: Int = 64) -> [RGBAImage] {
        var seed: UInt32 = 12345
        func noise() -> Int {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Int(seed >> 24) % (2 * amplitude + 1) - amplitude
        }
        return (0..<frames).map { f in
            var pixels: [UInt8] = []
            pixels.reserveCapacity(width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let inSquare = (8 + f * 10..<20 + f * 10).contains(x) && (20..<32).contains(y)
                    let c = inSquare ? (230, 40, 40) : (40 + x * 2, 60 + y * 2, 200 - x)
                    pixels += [UInt8(max(0, min(255, c.0 + noise()))), UInt8(max(0, min(255, c.1 + noise()))),
                               UInt8(max(0, min(255, c.2 + noise()))), 255]
                }
            }
            return RGBAImage(width: width, height: height, pixels: pixels)
        }
    }

    /// The canvases a viewer sees, frame by frame, from the quantise stage's frames.
    static func canvases(of images: [RGBAImage], options: GIFOptions) -> [RGBAImage] {
        var stage = GIFQuantizeStage(options: options, globalPalette: nil, transparentFrames: false, source: "still")
        var compositor = Compositor(width: images[0].width, height: images[0].height, globalPalette: nil)
        return images.enumerated().map { t, image in
            compositor.draw(stage.quantize(image, time: Double(t) / 10).frame)
            return compositor.canvas
        }
    }

    /// The share of the still shot's still area (outside the square's path, x 8...71, y 20...31)
    /// shown in another colour in frame `f` than in frame `f - 1`.
    static func flicker(_ shown: [RGBAImage], at f: Int) -> Double {
        let w = shown[f].width, h = shown[f].height
        var changed = 0, still = 0
        for y in 0..<h {
            for x in 0..<w where !((20..<32).contains(y) && (8..<72).contains(x)) {
                still += 1
                let i = (y * w + x) * 4
                if shown[f].pixels[i..<i + 3] != shown[f - 1].pixels[i..<i + 3] { changed += 1 }
            }
        }
        return Double(changed) / Double(still)
    }

    @Test func stillAreasKeepWhatIsShownAndItsColour() throws {
        // Noise past the change threshold (60) in every frame: a still area keeps its dither
        // pattern wherever that is within 60 of a fresh colour (error included), so the picture
        // does not flicker, and what is shown stays the source's colour.
        let images = Self.stillShot(frames: 6, noise: 4)
        var options = GIFOptions()
        options.changeThreshold = 60
        let shown = Self.canvases(of: images, options: options)
        // Lossy LZW turns keeping off (the quantised frames are otherwise the same): the baseline.
        options.lossy = 1
        let redithered = Self.canvases(of: images, options: options)
        var shares: [Double] = [], before: [Double] = []
        for f in 1..<shown.count {
            shares.append(Self.flicker(shown, at: f))
            before.append(Self.flicker(redithered, at: f))
            // The colour seen from a little way off (8x8 block means) is the source's.
            let error = BlockMeanError.between(images[f], shown[f])
            #expect(error < 2.5, "frame \(f): block-mean error \(error)")
        }
        let mean = shares.reduce(0, +) / Double(shares.count), meanBefore = before.reduce(0, +) / Double(before.count)
        // Measured: 35% of the still area shown in a new colour per frame on average (each
        // frame's palette is new), more than twice that when dithered anew.
        #expect(mean < meanBefore / 2, "kept: \(shares), dithered anew: \(before)")
    }

    @Test func atThresholdZeroColoursThePaletteHoldsStayExact() throws {
        // Few colours (each frame fits a palette), changing by small steps: nothing is kept that
        // is not the exact colour, so every frame is shown as it is.
        let images = (0..<4).map { (f: Int) -> RGBAImage in
            var pixels: [UInt8] = []
            for i in 0..<128 {
                let red: Int = 100 + (i / 16 + f) % 4, green: Int = 80 + i % 16 / 4
                pixels += [UInt8(red), UInt8(green), 60, 255]
            }
            return RGBAImage(width: 16, height: 8, pixels: pixels)
        }
        var options = GIFOptions()
        options.changeThreshold = 0
        #expect(Self.canvases(of: images, options: options) == images)
    }

    @Test func underLossyLZWStillAreasKeepWhatTheWriterShowed() throws {
        // The same still shot written at lossy 40: the one writer hands back what each image
        // showed, and the quantiser keeps against that. The baseline is the same level written
        // without the writer handing anything back.
        let dir = Fixture.scratchDirectory()
        let images = Self.stillShot(frames: 6, noise: 4)
        var urls: [URL] = []
        for (i, image) in images.enumerated() {
            urls.append(dir.appendingPathComponent("\(i).png"))
            try PNGWriter.write(image, to: urls[i])
        }
        var options = GIFOptions()
        options.lossy = 40
        let kept = dir.appendingPathComponent("kept.gif"), alone = dir.appendingPathComponent("alone.gif")
        _ = try GIFConverter(options: options).convert(images: urls, delays: [10, 10, 10, 10, 10, 10], to: kept)
        options.handsShownBack = false
        let unfed = try GIFConverter(options: options).convert(images: urls, delays: [10, 10, 10, 10, 10, 10], to: alone)
        #expect(unfed.settings.lossy == 40)
        func flicker(_ url: URL) throws -> Double {
            let canvases = try GiflibReference(url: url).canvases
            return (1..<canvases.count).map { Self.flicker(canvases, at: $0) }.reduce(0, +) / Double(canvases.count - 1)
        }
        let withFeedback = try flicker(kept), without = try flicker(alone)
        // Measured: 55% of the still area shown in a new colour per frame, against 99% (at
        // threshold 0 only what is at least as close as a fresh colour is kept under lossy LZW).
        #expect(withFeedback < without * 0.75, "\(withFeedback) against \(without)")
    }
}
