// `clipkit gif` as a user runs it: defaults, options, refusals, PNG assembly and manifest round trips.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct GIFCommandTests {
    @Test func defaultsLoopForeverAtTenFPS() throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run(["gif", Fixture.url("video/counter.mp4").path], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        // Not a terminal: one summary line.
        #expect(result.stderrLines.count == 1 && result.stderr.contains("40 frames"))
        let gif = try GIFDecoder(url: dir.appendingPathComponent("counter.gif"))
        #expect(gif.canvasWidth == 160)
        #expect(try gif.remainingDelays() == Array(repeating: 10, count: 40))
        #expect(gif.loopCount == 0)

        let quiet = try CLI.run(["gif", Fixture.url("video/vfr.mkv").path, "--no-loop", "-q", "-o", "once.gif"], in: dir)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        #expect(try loopCount(dir.appendingPathComponent("once.gif")) == nil)
        _ = try CLI.run(["gif", Fixture.url("video/vfr.mkv").path, "--loop", "2", "-q", "-o", "twice.gif"], in: dir)
        #expect(try loopCount(dir.appendingPathComponent("twice.gif")) == 2)
    }

    /// A GIF or animated PNG input keeps its own loop count, as gifsicle keeps a GIF's (every
    /// re-encode looped forever, so a GIF made to play once or five times no longer did);
    /// `--loop`/`--no-loop` still decide, and an output is up to date only for the count it has.
    @Test func anAnimatedInputKeepsItsLoopCount() throws {
        let dir = Fixture.scratchDirectory()
        for (input, expected) in [("gif/loop_five.gif", 5), ("gif/loop_absent.gif", nil), ("gif/loop_zero.gif", 0),
                                  ("gif/loop_animexts.gif", try loopCount(Fixture.url("gif/loop_animexts.gif"))),
                                  ("video/anim_apng_15ms.png", 2), ("video/anim_apng_50ms.png", 0), ("video/counter.mp4", 0)] as [(String, Int?)] {
            let result = try CLI.run(["gif", Fixture.url(input).path, "-q", "-o", "kept.gif", "--force"], in: dir)
            #expect(result.status == 0, "\(input): \(result.stderr)")
            #expect(try loopCount(dir.appendingPathComponent("kept.gif")) == expected, "\(input)")
            // The WebP of the same run plays as often (WebP counts plays: N repeats are N + 1).
            if input == "gif/loop_five.gif" || input == "gif/loop_absent.gif" {
                _ = try CLI.run(["gif", Fixture.url(input).path, "-q", "-o", "kept.webp", "--force"], in: dir)
                #expect(try FormatTests.webp(dir.appendingPathComponent("kept.webp")).loop == expected.map { $0 == 0 ? 0 : $0 + 1 } ?? 1)
            }
        }
        #expect(try loopCount(Fixture.url("gif/loop_animexts.gif")) != nil)

        let five = Fixture.url("gif/loop_five.gif").path
        #expect(try CLI.run(["gif", five, "-q", "-o", "five.gif"], in: dir).status == 0)
        // Up to date for the source's count; `--loop 0` is another output, made again.
        #expect(try CLI.run(["gif", five, "-o", "five.gif"], in: dir).stderr.contains("up to date"))
        let forever = try CLI.run(["gif", five, "-o", "five.gif", "--loop", "0"], in: dir)
        #expect(!forever.stderr.contains("up to date"))
        #expect(try loopCount(dir.appendingPathComponent("five.gif")) == 0)
        #expect(!(try CLI.run(["gif", five, "-o", "five.gif"], in: dir).stderr.contains("up to date")))
        #expect(try loopCount(dir.appendingPathComponent("five.gif")) == 5)
        _ = try CLI.run(["gif", five, "-q", "-o", "once.gif", "--no-loop"], in: dir)
        #expect(try loopCount(dir.appendingPathComponent("once.gif")) == nil)

        // A video's frames.json loops forever, as its GIF does (it had none: the rebuilt GIF played once).
        #expect(try CLI.run(["explode", Fixture.url("video/counter.mp4").path, "--fps", "2", "-o", "v.frames"], in: dir).status == 0)
        #expect(try FramesManifest.read(from: dir.appendingPathComponent("v.frames/frames.json")).loopCount == 0)
        #expect(try CLI.run(["gif", "v.frames/frames.json", "-q", "-o", "v.gif"], in: dir).status == 0)
        #expect(try loopCount(dir.appendingPathComponent("v.gif")) == 0)
        #expect(try CLI.run(["explode", Fixture.url("video/anim_apng_15ms.png").path, "-o", "p.frames"], in: dir).status == 0)
        #expect(try FramesManifest.read(from: dir.appendingPathComponent("p.frames/frames.json")).loopCount == 2)
    }

    /// A 16-bit PNG without gAMA or sRGB is sRGB-encoded, as an 8-bit one is: its GIF has the
    /// ramp's greys (libpng's simplified API took it for linear light: 32 became 99, 128 186),
    /// as `thumb` (FFmpeg's decoder) had them. 256 greys in 255 colours: within a level.
    @Test func aSixteenBitPNGKeepsItsLevels() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Fixture.url("video/ramp48.png").path, "-q", "-o", "r.gif"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let frame = try #require(try Decoded.gif(dir.appendingPathComponent("r.gif")).canvases.first)
        #expect(frame.width == 256)
        for x in stride(from: 0, to: 256, by: 16) {
            let grey = Int(frame.pixels[x * 4])
            #expect(abs(grey - x) <= 1, "x \(x): \(grey)")
        }
        let direct = try PNGReader.read(Fixture.url("video/ramp48.png"))
        #expect((0..<256).allSatisfy { abs(Int(direct.pixels[$0 * 4]) - $0) <= 1 })
    }

    /// Grey of 10 bits without a range tag is full range, as ffmpeg and 8-bit grey take it (it
    /// was stretched as if limited: level 16 came out 0, 128 as 130); and a ramp small enough
    /// to share one palette (256 x 8), or given `--palette global`, keeps its 256 levels, as a
    /// frame's own palette does (it got 32, in bands 8 levels wide).
    @Test func aGreyRampVideoKeepsItsLevels() throws {
        let dir = Fixture.scratchDirectory()
        let source = Fixture.url("video/gray10_ramp.mkv").path
        let thumb = try CLI.run(["thumb", source, "--size", "0", "-o", "t.png"], in: dir)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let poster = try PNGReader.read(dir.appendingPathComponent("t.png"))
        #expect((0..<256).allSatisfy { abs(Int(poster.pixel(x: $0, y: 4).r) - $0) <= 1 },
                "\((0..<256).map { poster.pixel(x: $0, y: 4).r })")
        for extra in [[], ["--palette", "global"]] {
            let run = try CLI.run(["gif", source, "-q", "-o", "r.gif", "--force"] + extra, in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            let frame = try #require(try Decoded.gif(dir.appendingPathComponent("r.gif")).canvases.first)
            let row = (0..<256).map { Int(frame.pixel(x: $0, y: 4).r) }
            #expect(row.enumerated().allSatisfy { abs($0.element - $0.offset) <= 1 } && Set(row).count >= 250, "\(extra): \(row)")
        }
    }

    /// A packed-RGB source of odd width scaled down keeps its last column (libswscale's 4:2:0
    /// detour read a pixel past each row, from the decoder's uncleared padding: 13-75 levels off,
    /// and two different GIFs in eight runs), and every run writes the same bytes.
    @Test func anOddWidthRGBSourceKeepsItsEdgeAndItsBytes() throws {
        let dir = Fixture.scratchDirectory()
        let source = Fixture.url("video/rgb_odd.mov").path
        var outputs: Set<Data> = []
        for run in 0..<4 {
            let gif = try CLI.run(["gif", source, "--width", "63", "--dither", "none", "-q", "-o", "g\(run).gif"], in: dir)
            #expect(gif.status == 0, "\(gif.stderr)")
            outputs.insert(try Data(contentsOf: dir.appendingPathComponent("g\(run).gif")))
        }
        #expect(outputs.count == 1, "\(outputs.count) different GIFs in 4 runs")
        let decoded = try Decoded.gif(dir.appendingPathComponent("g0.gif"), keep: 3)
        for (k, canvas) in decoded.canvases.enumerated() {
            let centre = canvas.pixel(x: canvas.width / 2, y: canvas.height / 2)
            for x in [0, canvas.width - 2, canvas.width - 1] {
                let p = canvas.pixel(x: x, y: canvas.height / 2)
                #expect(abs(Int(p.r) - Int(centre.r)) <= 2 && abs(Int(p.g) - Int(centre.g)) <= 2 && abs(Int(p.b) - Int(centre.b)) <= 2,
                        "frame \(k) x \(x): \(p) against \(centre)")
            }
        }
    }

    /// Uncompressed QuickTime 4:2:2 (2vuy), whose sample description says 24 bits a pixel for
    /// its 16: `thumb` and `storyboard`, which do not probe, took every picture for one cut short
    /// ("a raw picture of 1024 bytes, 1536 needed") and refused the file; `gif` probed and worked.
    @Test func uncompressedQuickTimeIsReadWithoutProbing() throws {
        let dir = Fixture.scratchDirectory()
        let source = Fixture.url("video/uyvy_2vuy.mov").path
        let thumb = try CLI.run(["thumb", source, "--size", "0", "-o", "t.png"], in: dir)
        #expect(thumb.status == 0 && thumb.stderr.isEmpty, "\(thumb.stderr)")
        let poster = try PNGReader.read(dir.appendingPathComponent("t.png"))
        let p = poster.pixel(x: 16, y: 8)
        #expect(abs(Int(p.r) - 8) <= 4 && abs(Int(p.g) - 8) <= 4, "counter 0 is (8, 8, 128): \(p)")
        let board = try CLI.run(["storyboard", source, "-o", "sb", "--interval", "0.1"], in: dir)
        #expect(board.status == 0 && board.stderr.isEmpty, "\(board.stderr)")
    }

    func loopCount(_ url: URL) throws -> Int? {
        let decoder = try GIFDecoder(url: url)
        _ = try decoder.remainingDelays()
        return decoder.loopCount
    }

    @Test func refusesBadValuesWithClearMessages() throws {
        let dir = Fixture.scratchDirectory()
        let counter = Fixture.url("video/counter.mp4").path
        for (arguments, needle) in [(["--fps", "0"], "--fps"), (["--fps", "60"], "at most 50"), (["--fps", "-3"], "got -3.0"),
                                    (["--quality", "-5"], "got -5"), (["--start", "-1"], "'-1' is not a time"), (["--lossy", "-1"], "got -1"),
                                    (["--colors", "1"], "--colors"), (["--dither", "fancy"], "--dither"),
                                    (["--loop", "2", "--no-loop"], "--no-loop"), (["--start", "abc"], "--start"),
                                    (["--duration", "1", "--end", "2"], "--duration"), (["--delay", "5"], "--delay")] {
            let result = try CLI.run(["gif", counter] + arguments, in: dir)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(needle), "\(arguments): \(result.stderr)")
        }
        // A negative number is an option's value (as ffmpeg reads it), not a missing one.
        let thumb = try CLI.run(["thumb", counter, "--at", "-2", "--skip-black-within", "-1"], in: dir)
        #expect(thumb.status == 2 && thumb.stderr.contains("'-2' is not a time") && !thumb.stderr.contains("Missing"), "\(thumb.stderr)")
        // No command: bad usage, the help on standard error.
        let bare = try CLI.run([], in: dir)
        #expect(bare.status == 2 && bare.stdout.isEmpty && bare.stderr.contains("SUBCOMMANDS"), "\(bare.stderr)")
        let late = try CLI.run(["gif", counter, "--start", "9"], in: dir)
        #expect(late.status == 1)
        #expect(late.stderr.contains("duration 4.000s"))
        let selfOverwrite = try CLI.run(["gif", dir.appendingPathComponent("x.gif").path, "-o", dir.appendingPathComponent("x.gif").path], in: dir)
        #expect(selfOverwrite.status == 1)
        #expect(CLI.files(in: dir).isEmpty, "no partial or temp files")
    }

    @Test func sameInputSameBytes() throws {
        let dir = Fixture.scratchDirectory()
        _ = try CLI.run(["gif", Fixture.url("video/motion.mp4").path, "--fps", "5", "-o", "a.gif"], in: dir)
        _ = try CLI.run(["gif", Fixture.url("video/motion.mp4").path, "--fps", "5", "-o", "b.gif"], in: dir)
        #expect(try Data(contentsOf: dir.appendingPathComponent("a.gif")) == Data(contentsOf: dir.appendingPathComponent("b.gif")))
    }

    @Test func explodeAndRebuildRoundTrips() throws {
        let dir = Fixture.scratchDirectory()
        for name in ["animated_transparent_frame_restoreprev_loop", "animated_loop_variable_delay", "animated_noloop"] {
            let source = Fixture.url("gif-test-suite/gifs/\(name).gif").path
            #expect(try CLI.run(["explode", source, "-o", "a-\(name)"], in: dir).status == 0)
            let rebuilt = try CLI.run(["gif", "a-\(name)/frames.json", "-o", "\(name).gif", "-q"], in: dir)
            #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
            #expect(try CLI.run(["explode", "\(name).gif", "-o", "b-\(name)"], in: dir).status == 0)
            let a = try FramesManifest.read(from: dir.appendingPathComponent("a-\(name)/frames.json"))
            let b = try FramesManifest.read(from: dir.appendingPathComponent("b-\(name)/frames.json"))
            #expect(a.loopCount == b.loopCount && a.canvas == b.canvas)
            #expect(a.frames.map(\.delayCs) == b.frames.map(\.delayCs))
            for (x, y) in zip(a.frames, b.frames) {
                let before = try PNGReader.read(dir.appendingPathComponent("a-\(name)/\(x.file)"))
                let after = try PNGReader.read(dir.appendingPathComponent("b-\(name)/\(y.file)"))
                #expect(before == after, "\(name) \(x.file)")
            }
        }
    }

    /// `gif DIR/frames.json --json` names the manifest as its input (it said DIR.json, a file
    /// that does not exist: the name the GIF's was derived from).
    @Test func aManifestsRunLineNamesTheManifest() throws {
        let dir = Fixture.scratchDirectory()
        #expect(try CLI.run(["explode", Fixture.url("gif/loop_five.gif").path, "-o", "fr"], in: dir).status == 0)
        let run = try CLI.run(["gif", "fr/frames.json", "-o", "out.gif", "--json", "-q"], in: dir)
        let manifest = dir.appendingPathComponent("fr/frames.json").path
        #expect(run.status == 0 && run.stdout.contains("\"input\":\"\(manifest)\""), "\(run.stdout)")
    }

    @Test func assemblesPNGFrames() throws {
        let dir = Fixture.scratchDirectory()
        var names: [String] = []
        for i in 0..<3 {
            var image = RGBAImage(width: 8, height: 4)
            for p in 0..<32 { image.pixels.replaceSubrange(p * 4..<p * 4 + 4, with: [UInt8(i * 80), UInt8(p * 8), 50, 255]) }
            try PNGWriter.write(image, to: dir.appendingPathComponent("f\(i).png"))
            names.append("f\(i).png")
        }
        let byDelay = try CLI.run(["gif"] + names + ["--delay", "25", "-o", "d.gif"], in: dir)
        #expect(byDelay.status == 0, "\(byDelay.stderr)")
        #expect(try GIFDecoder(url: dir.appendingPathComponent("d.gif")).remainingDelays() == [25, 25, 25])
        let byFPS = try CLI.run(["gif"] + names + ["--fps", "30", "-o", "f.gif"], in: dir)
        #expect(byFPS.status == 0)
        #expect(try GIFDecoder(url: dir.appendingPathComponent("f.gif")).remainingDelays() == [3, 4, 3])
        let mixed = try CLI.run(["gif", "f0.png", Fixture.url("video/counter.mp4").path], in: dir)
        #expect(mixed.status == 2)
    }

    /// A GIF input keeps its own frames and delays unless --fps is given, as gifsicle and
    /// `ffmpeg -i in.gif out.gif` keep them (at the default 10 fps a 20 fps GIF lost half its
    /// frames, and 3 cs delays became 10 cs steps). Sped up, it is sampled at 10 fps (the last
    /// frame lasts to the end: no delay under 2 cs is written).
    @Test func aGIFKeepsItsOwnFramesAndDelays() throws {
        let dir = Fixture.scratchDirectory()
        let names = try PNGFrames.write(7, width: 24, height: 16, in: dir) { i, x, y in (i * 30, x / 4 * 40, y / 4 * 60) }
        let made = try CLI.run(["gif"] + names + ["--delay", "3", "-q", "-o", "in.gif"], in: dir)
        #expect(made.status == 0, "\(made.stderr)")
        let source = try GIFDecoder(url: dir.appendingPathComponent("in.gif")).remainingDelays()
        #expect(source == Array(repeating: 3, count: 7))
        let again = try CLI.run(["gif", "in.gif", "-q", "-o", "out.gif"], in: dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try GIFDecoder(url: dir.appendingPathComponent("out.gif")).remainingDelays() == source)
        // Every frame as the source shows it (at most 255 colours: exact).
        let before = try compositedCanvases(dir.appendingPathComponent("in.gif")), after = try compositedCanvases(dir.appendingPathComponent("out.gif"))
        #expect(before.count == 7 && before == after)

        let sampled = try CLI.run(["gif", "in.gif", "--fps", "10", "-q", "-o", "ten.gif"], in: dir)
        #expect(sampled.status == 0)
        #expect(try GIFDecoder(url: dir.appendingPathComponent("ten.gif")).remainingDelays() == [10, 11])
        let fast = try CLI.run(["gif", "in.gif", "--speed", "2", "-q", "-o", "fast.gif"], in: dir)
        #expect(fast.status == 0)
        #expect(try GIFDecoder(url: dir.appendingPathComponent("fast.gif")).remainingDelays() == [11])
    }

    func compositedCanvases(_ url: URL) throws -> [RGBAImage] {
        let decoder = try GIFDecoder(url: url)
        var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
        var canvases: [RGBAImage] = []
        while let frame = try decoder.next() {
            compositor.draw(frame, decodedPixels: decoder.decodedPixelCount)
            canvases.append(compositor.canvas)
        }
        return canvases
    }

    /// An animated PNG (APNG) is an animation, converted as a video is: its frames and delays,
    /// not its first frame alone, as a still PNG is.
    @Test func convertsAnAnimatedPNGAsAVideo() throws {
        let dir = Fixture.scratchDirectory()
        let apng = Fixture.url("video/anim_apng.png")
        let result = try CLI.run(["gif", apng.path, "-q", "-o", "a.gif"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let url = dir.appendingPathComponent("a.gif")
        #expect(try GIFDecoder(url: url).remainingDelays() == [10, 20, 30, 40])
        // Counter colours 0, 3, 6 and 9, as the APNG shows them (at most 255 colours: exact).
        let decoder = try GIFDecoder(url: url)
        #expect(decoder.canvasWidth == 48 && decoder.canvasHeight == 32)
        var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
        for n in [0, 3, 6, 9] {
            let frame = try #require(try decoder.next())
            compositor.draw(frame, decodedPixels: decoder.decodedPixelCount)
            let want = [8 + 16 * (n % 16), 8 + 16 * ((n / 16) % 16), 200, 255]
            for offset in [0, (16 * 48 + 24) * 4, (32 * 48 - 1) * 4] {
                #expect(compositor.canvas.pixels[offset..<offset + 4].map(Int.init) == want, "frame of counter \(n)")
            }
        }
        #expect(try decoder.next() == nil)
        #expect(PNGReader.isAnimated(apng))
        #expect(PNGReader.frameDelays(apng) == [0.1, 0.2, 0.3, 0.4])

        // Frames of 50 ms keep their own timing, as a GIF input's do (at 10 fps every other one
        // was dropped); frames of 15 ms, which a GIF cannot show, are sampled at 10 fps (the 90 ms
        // of six: one frame).
        for (name, delays, firstColours) in [("anim_apng_50ms.png", [5, 5, 5, 5, 5, 5], [0, 1, 2]), ("anim_apng_15ms.png", [9], [0])] {
            let out = try CLI.run(["gif", Fixture.url("video/" + name).path, "-q", "-o", "t.gif"], in: dir)
            #expect(out.status == 0, "\(out.stderr)")
            let gif = try Decoded.gif(dir.appendingPathComponent("t.gif"), keep: 3)
            #expect(gif.delays == delays, "\(name)")
            for (canvas, n) in zip(gif.canvases, firstColours) {
                #expect(canvas.pixels[0..<3].map(Int.init) == [8 + 16 * n, 8, 200], "\(name): frame of counter \(n)")
            }
        }

        // A still PNG is one frame; beside an animated one (a video), a usage error.
        let still = Fixture.url("video/still.png")
        #expect(!PNGReader.isAnimated(still))
        let one = try CLI.run(["gif", still.path, "-q", "-o", "s.gif"], in: dir)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try GIFDecoder(url: dir.appendingPathComponent("s.gif")).remainingDelays().count == 1)
        let mixed = try CLI.run(["gif", still.path, apng.path, "-o", "m.gif"], in: dir)
        #expect(mixed.status == 2 && mixed.stderr.contains("animated PNG"), "\(mixed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("m.gif").path))

        // Cut before its acTL chunk, or not a PNG: not animated (and read as what it is).
        let cut = dir.appendingPathComponent("cut.png")
        try Data(try Data(contentsOf: apng).prefix(40)).write(to: cut)
        #expect(!PNGReader.isAnimated(cut))
        #expect(!PNGReader.isAnimated(Fixture.url("video/not_video.mp4")))
        #expect(!PNGReader.isAnimated(dir.appendingPathComponent("missing.png")))
    }

    /// JPEG frames are assembled as PNG ones are, upright by their EXIF orientation (FFmpeg
    /// decodes them); a frame of another size, or a video beside them, is refused.
    @Test func assemblesJPEGFramesUpright() throws {
        let dir = Fixture.scratchDirectory()
        let photo = Fixture.url("video/orient6.jpg")
        let copy = dir.appendingPathComponent("second.JPEG")
        try FileManager.default.copyItem(at: photo, to: copy)
        let result = try CLI.run(["gif", photo.path, copy.path, "--delay", "20", "-q", "-o", "p.gif"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let gif = try Decoded.gif(dir.appendingPathComponent("p.gif"))
        #expect(gif.canvases[0].width == 32 && gif.canvases[0].height == 64, "upright: \(gif.canvases[0].width)x\(gif.canvases[0].height)")
        #expect(gif.delays == [20, 20])
        // The stored picture's bottom left quadrant (blue) at the top left, as browsers show it.
        for (x, y, want) in [(4, 4, (0, 0, 255)), (27, 4, (255, 0, 0)), (4, 59, (255, 255, 255)), (27, 59, (0, 255, 0))] {
            let p = gif.canvases[0].pixel(x: x, y: y)
            #expect(abs(Int(p.r) - want.0) < 24 && abs(Int(p.g) - want.1) < 24 && abs(Int(p.b) - want.2) < 24, "\(x),\(y): \(p)")
        }
        let sizes = try CLI.run(["gif", photo.path, Fixture.url("video/still.jpg").path, "-o", "s.gif"], in: dir)
        #expect(sizes.status == 1 && sizes.stderr.contains("same size"), "\(sizes.stderr)")
        let mixed = try CLI.run(["gif", photo.path, Fixture.url("video/counter.mp4").path, "-o", "m.gif"], in: dir)
        #expect(mixed.status == 2 && mixed.stderr.contains("image frames"), "\(mixed.stderr)")
        for name in ["s.gif", "m.gif"] { #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path)) }
    }
}

@Suite struct PNGFrameSizeTests {
    @Test func pngFramesKeepTheirSizeUnlessAskedAndFitANarrowerPicture() throws {
        let dir = Fixture.scratchDirectory()
        let names = try PNGFrames.write(3, width: 640, height: 360, in: dir) { i, x, y in
            ((x + i * 9) & 255, (x * y / 64) & 255, (y * 3) & 255)
        }
        func size(_ name: String) throws -> (width: Int, height: Int, bytes: Int) {
            let canvas = try #require(try Decoded.gif(dir.appendingPathComponent(name), keep: 1).canvases.first)
            return (canvas.width, canvas.height, try Data(contentsOf: dir.appendingPathComponent(name)).count)
        }
        // Their own size by default (not the 480 px a video gets), the size asked for otherwise.
        #expect(try CLI.run(["gif"] + names + ["-o", "own.gif", "-q"], in: dir).status == 0)
        let own = try size("own.gif")
        #expect((own.width, own.height) == (640, 360))
        #expect(try CLI.run(["gif"] + names + ["--width", "200", "-o", "w200.gif", "-q"], in: dir).status == 0)
        #expect(try (size("w200.gif").width, size("w200.gif").height) == (200, 113))
        #expect(try CLI.run(["gif"] + names + ["--size", "100x100", "-o", "fit.gif", "-q"], in: dir).status == 0)
        #expect(try (size("fit.gif").width, size("fit.gif").height) == (100, 56))
        // --max-bytes far under the full size: a narrower picture that fits, not "no GIF fits".
        let limit = own.bytes / 6
        let fit = try CLI.run(["gif"] + names + ["--max-bytes", "\(limit)", "-o", "small.gif"], in: dir)
        #expect(fit.status == 0, "\(fit.stderr)")
        let small = try size("small.gif")
        #expect(small.bytes <= limit && small.width < 640, "\(small)")
        // A frames.json (explode's) keeps its canvas unless a size is asked for.
        #expect(try CLI.run(["explode", "own.gif", "-o", "frames"], in: dir).status == 0)
        #expect(try CLI.run(["gif", "frames/frames.json", "-o", "back.gif", "-q"], in: dir).status == 0)
        #expect(try (size("back.gif").width, size("back.gif").height) == (640, 360))
        #expect(try CLI.run(["gif", "frames/frames.json", "--width", "320", "-o", "half.gif", "-q"], in: dir).status == 0)
        #expect(try (size("half.gif").width, size("half.gif").height) == (320, 180))
    }
}

@Suite struct LossyCommandTests {
    @Test func lossyIsSmallerWithTheSameTiming() throws {
        let dir = Fixture.scratchDirectory()
        let motion = Fixture.url("video/motion.mp4").path
        var sizes: [Int] = [], delays: [[Int]] = []
        for level in ["0", "80"] {
            let result = try CLI.run(["gif", motion, "--lossy", level, "-q", "-o", "l\(level).gif"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let url = dir.appendingPathComponent("l\(level).gif")
            sizes.append(try Data(contentsOf: url).count)
            delays.append(try GIFDecoder(url: url).remainingDelays())
        }
        #expect(sizes[1] < sizes[0], "\(sizes)")
        #expect(delays[0] == delays[1] && delays[0].count > 1)
        for bad in [["--lossy", "-1"], ["--lossy=-1"], ["--lossy", "abc"], ["--lossy", "1001"]] {
            let result = try CLI.run(["gif", motion, "-o", "bad.gif"] + bad, in: dir)
            #expect(result.status == 2, "\(bad): \(result.stderr)")
        }
    }

    @Test(arguments: [["--lossy", "40"], ["--quality", "50"], ["--lossy", "40", "--palette", "global"]])
    func repeatedFramesUnderLossyLZWFinish(_ options: [String]) throws {
        // Identical PNG frames are not merged (each keeps its delay): every one after the first
        // draws nothing. Under lossy LZW the writer reports each image back to the quantiser; a
        // run of frames that draw nothing once left both waiting on each other forever.
        let dir = Fixture.scratchDirectory()
        var pixels: [UInt8] = []
        for i in 0..<(48 * 32) { pixels += [UInt8(i * 7 & 255), UInt8(i * 13 & 255), UInt8(i & 255), 255] }
        let image = RGBAImage(width: 48, height: 32, pixels: pixels)
        var names: [String] = []
        for i in 0..<8 {
            names.append("\(i).png")
            try PNGWriter.write(image, to: dir.appendingPathComponent(names[i]))
        }
        let run = try Spawn.clipkit(["gif"] + names + ["--delay", "10", "-o", "out.gif"] + options, in: dir, killAfter: 60)
        #expect(!run.killed && run.exitStatus == 0, "\(run)")
        let gif = try Decoded.gif(dir.appendingPathComponent("out.gif"), keep: 8)
        #expect(gif.delays.reduce(0, +) == 80)
        #expect(gif.canvases.allSatisfy { $0 == gif.canvases[0] })
    }
}

@Suite struct PaletteErrorCommandTests {
    /// Frames of a flat "screen" (a dozen UI colours in blocks, a sliding highlight, under a
    /// noise of up to 7 levels per channel: hundreds of colours, so no exact table) or of a
    /// "scene" (a smooth two-way colour gradient under the same noise).
    func frames(screen: Bool, in dir: URL) throws -> [String] {
        var seed: UInt64 = screen ? 1 : 2
        func noise() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 61)
        }
        let ui: [(Int, Int, Int)] = [(30, 30, 36), (240, 240, 240), (0, 120, 215), (200, 60, 60), (60, 180, 90), (250, 200, 40),
                                     (90, 90, 100), (160, 160, 170), (20, 60, 120), (255, 255, 255), (120, 40, 160), (10, 10, 10)]
        return try PNGFrames.write(4, width: 160, height: 96, in: dir, prefix: screen ? "screen" : "scene") { i, x, y in
            var c = screen ? ui[(x / 20 + (y / 24) * 8) % ui.count] : (x * 255 / 159, y * 255 / 95, (x + 2 * y) % 256)
            if screen, (i * 20..<i * 20 + 30).contains(x), y < 12 { c = ui[2] }
            return (c.0 + noise(), c.1 + noise(), c.2 + noise())
        }
    }

    /// Mean absolute difference per RGB channel.
    func meanDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        var sum = 0
        for i in 0..<a.pixels.count where i % 4 != 3 { sum += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(sum) / Double(a.width * a.height * 3)
    }

    /// Distinct colour indices the GIF's first image uses.
    func coloursUsed(_ url: URL) throws -> Int {
        let frame = try #require(try GIFDecoder(url: url).next())
        return Set(frame.indices).count
    }

    @Test func flatContentGetsTheColoursItNeedsAndAGradientKeepsAll() throws {
        let dir = Fixture.scratchDirectory()
        for screen in [true, false] {
            let names = try frames(screen: screen, in: dir)
            var sizes: [Int] = [], used: [Int] = []
            for target in [0, 60] {
                let out = "\(screen ? "screen" : "scene")-e\(target).gif"
                let run = try CLI.run(["gif"] + names + ["--fps", "10", "--palette-error", "\(target)", "-q", "-o", out], in: dir)
                #expect(run.status == 0, "\(run.stderr)")
                let url = dir.appendingPathComponent(out)
                sizes.append(try Data(contentsOf: url).count)
                used.append(try coloursUsed(url))
                // What the viewer sees stays within the noise of the source (dithered).
                let shown = try #require(try Decoded.gif(url, keep: 1).canvases.first)
                let source = try PNGReader.read(dir.appendingPathComponent(names[0]))
                #expect(meanDifference(shown, source) < 6, "\(out): \(meanDifference(shown, source))")
            }
            if screen {
                // A dozen flat colours: fewer palette entries, and fewer bytes.
                #expect(used[1] < used[0] / 2 && used[1] >= 12, "colours used \(used)")
                #expect(sizes[1] < sizes[0], "bytes \(sizes)")
            } else {
                // A gradient stays far above the target at 256 colours: the same GIF.
                #expect(used[1] == used[0] && sizes[1] == sizes[0], "colours used \(used), bytes \(sizes)")
            }
        }
        // Out of range: bad usage.
        #expect(try CLI.run(["gif", "screen0.png", "--palette-error", "-1", "-o", "x.gif"], in: dir).status == 2)
    }
}
