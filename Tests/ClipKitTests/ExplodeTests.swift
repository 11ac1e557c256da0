// Checks explode end to end: files, frames.json, --frames, refusals leaving nothing behind, video input.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ExplodeTests {
    /// Everything in `directory`, hidden files included, sorted.
    func listing(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func explodesAConformanceGIF() throws {
        let scratch = Fixture.scratchDirectory()
        let target = scratch.appendingPathComponent("out")
        let result = try Exploder().explode(Fixture.url("gif-test-suite/gifs/animated_loop_variable_delay.gif"), into: target)
        #expect(result.warnings.isEmpty)
        #expect(listing(scratch) == ["out"])
        #expect(listing(target) == ["frame_0000.png", "frame_0001.png", "frame_0002.png", "frame_0003.png", "frames.json"])
        for n in 0..<4 {
            let written = try PNGReader.read(target.appendingPathComponent("frame_000\(n).png"))
            let reference = try PNGReader.read(Fixture.url("gif-test-suite/gifs/frames/animated_loop_variable_delay-\(n).png"))
            #expect(differingPixels(written, reference) == 0)
        }
        let manifest = try FramesManifest.read(from: target.appendingPathComponent("frames.json"))
        #expect(manifest == result.manifest)
        #expect(manifest.source == "animated_loop_variable_delay.gif")
        #expect(manifest.canvas == .init(width: 100, height: 100))
        #expect(manifest.loopCount == 0)
        #expect(manifest.frames.map(\.delayCs) == [100, 100, 10, 100])
        #expect(manifest.frames.map(\.delayMs) == [1000, 1000, 100, 1000])
        #expect(manifest.durationMs == 3100)
        #expect(manifest.frames.map(\.disposal) == ["none", "none", "none", "none"])
        #expect(manifest.frames[1].left == 10 && manifest.frames[1].width == 30 && manifest.frames[1].localPalette)
    }

    @Test func manifestTextHasTheDocumentedShape() throws {
        let target = Fixture.scratchDirectory().appendingPathComponent("t")
        _ = try Exploder().explode(Fixture.url("gif/loop_absent.gif"), into: target)
        let text = try String(contentsOf: target.appendingPathComponent("frames.json"), encoding: .utf8)
        #expect(text == """
        {
          "format": "clipkit-frames/1",
          "source": "loop_absent.gif",
          "canvas": { "width": 3, "height": 2 },
          "loop_count": null,
          "duration_ms": 600,
          "frames": [
            { "file": "frame_0000.png", "delay_cs": 10, "delay_ms": 100, "left": 0, "top": 0, "width": 3, "height": 2, "disposal": "none", "transparent_index": null, "interlaced": false, "local_palette": false },
            { "file": "frame_0001.png", "delay_cs": 20, "delay_ms": 200, "left": 0, "top": 0, "width": 3, "height": 2, "disposal": "none", "transparent_index": null, "interlaced": false, "local_palette": false },
            { "file": "frame_0002.png", "delay_cs": 30, "delay_ms": 300, "left": 0, "top": 0, "width": 3, "height": 2, "disposal": "none", "transparent_index": null, "interlaced": false, "local_palette": false }
          ]
        }

        """)
    }

    @Test func tilingManifestDescribesTheLastImageOfEachFrame() throws {
        let target = Fixture.scratchDirectory().appendingPathComponent("t")
        let manifest = try Exploder().explode(Fixture.url("gif/tiling.gif"), into: target).manifest
        #expect(manifest.frames.map(\.file) == ["frame_0000.png", "frame_0001.png", "frame_0002.png"])
        #expect(manifest.frames.map(\.delayCs) == [7, 12, 0])
        #expect(manifest.frames[0].top == 2 && manifest.frames[0].width == 4)
        #expect(manifest.frames[1].disposal == "none" && manifest.frames[1].width == 1)
        #expect(manifest.loopCount == nil)
    }

    @Test(arguments: ExpectedGIF.decodable)
    func explodedFixtureMatchesTheModel(_ file: String) throws {
        let expected = try #require(ExpectedGIF.all[file])
        let target = Fixture.scratchDirectory().appendingPathComponent("t")
        let result = try Exploder().explode(Fixture.url("gif/\(file)"), into: target)
        #expect(result.manifest.loopCount == expected.loop_count)
        #expect([result.manifest.canvas.width, result.manifest.canvas.height] == expected.canvas)
        #expect(!result.warnings.isEmpty == expected.warns)
        let frames = try #require(expected.frames)
        try #require(result.manifest.frames.count == frames.count)
        for (n, (written, want)) in zip(result.manifest.frames, frames).enumerated() {
            #expect(written.delayCs == want.delay_cs && written.disposal == want.disposal)
            #expect(written.transparentIndex == want.transparent_index && written.interlaced == want.interlaced)
            let image = try PNGReader.read(target.appendingPathComponent(written.file))
            let reference = try PNGReader.read(Fixture.url("gif/expected/" + file.replacingOccurrences(of: ".gif", with: "-\(n).png")))
            #expect(image == reference, "\(written.file)")
        }
    }

    @Test func framesOptionWritesOnlyTheChosenFrames() throws {
        let target = Fixture.scratchDirectory().appendingPathComponent("t")
        let options = ExplodeOptions(frames: try FrameSelection(parsing: "1,3"))
        let result = try Exploder(options: options).explode(Fixture.url("gif-test-suite/gifs/animated_transparent_restoreprev_loop.gif"), into: target)
        #expect(listing(target) == ["frame_0001.png", "frame_0003.png", "frames.json"])
        #expect(result.manifest.frames.map(\.file) == ["frame_0001.png", "frame_0003.png"])
        #expect(result.manifest.durationMs == 2000)
        // Frame 3 is composited over everything before it, even though 0 and 2 were not written.
        for n in [1, 3] {
            let written = try PNGReader.read(target.appendingPathComponent("frame_000\(n).png"))
            let reference = try PNGReader.read(Fixture.url("gif-test-suite/gifs/frames/animated_transparent_restoreprev_loop-\(n).png"))
            #expect(differingPixels(written, reference) == 0)
        }
    }

    @Test func frameSelectionParsing() throws {
        #expect(try FrameSelection(parsing: "0,5-9").ranges == [0...0, 5...9])
        #expect(try FrameSelection(parsing: "0,5-9").last == 9)
        for bad in ["", "a", "3-1", "-1", "1,,2", "1-2-3", "٣"] {
            #expect(throws: ClipKitError.self) { _ = try FrameSelection(parsing: bad) }
        }
        #expect(Exploder.digits(frameCount: 1) == 4)
        #expect(Exploder.digits(frameCount: 10000) == 4)
        #expect(Exploder.digits(frameCount: 10001) == 5)
        #expect(Exploder.fileName(42, digits: 5) == "frame_00042.png")
    }

    @Test(arguments: ["gif/huge_canvas.gif", "gif/bad_lzw_first.gif", "gif/zero_width.gif", "gif/not_a_gif.gif", "gif/missing.gif"])
    func failuresLeaveNoOutput(_ file: String) throws {
        let scratch = Fixture.scratchDirectory()
        #expect(throws: ClipKitError.self) {
            _ = try Exploder().explode(Fixture.url(file), into: scratch.appendingPathComponent("out"))
        }
        #expect(listing(scratch).isEmpty)
    }

    @Test func selectionBeyondTheLastFrameFailsWithoutOutput() throws {
        let scratch = Fixture.scratchDirectory()
        let options = ExplodeOptions(frames: try FrameSelection(parsing: "2-4"))
        #expect(throws: ClipKitError.self) {
            _ = try Exploder(options: options).explode(Fixture.url("gif/loop_zero.gif"), into: scratch.appendingPathComponent("out"))
        }
        #expect(listing(scratch).isEmpty)
    }

    @Test func existingOutputIsReplacedOnlyWithForceAndOnlyIfItIsAnExplodeOutput() throws {
        let scratch = Fixture.scratchDirectory()
        let target = scratch.appendingPathComponent("out")
        let input = Fixture.url("gif/loop_five.gif")
        // An empty directory is fine.
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        _ = try Exploder().explode(input, into: target)
        #expect(throws: ClipKitError.self) { _ = try Exploder().explode(input, into: target) }
        _ = try Exploder(options: ExplodeOptions(force: true)).explode(input, into: target)
        #expect(listing(target) == ["frame_0000.png", "frame_0001.png", "frame_0002.png", "frames.json"])
        #expect(listing(scratch) == ["out"])
        // A file the manifest does not list is not clipkit's: the directory is left alone.
        try Data("x".utf8).write(to: target.appendingPathComponent("stale.txt"))
        #expect(throws: ClipKitError.self) { _ = try Exploder(options: ExplodeOptions(force: true)).explode(input, into: target) }
        #expect(listing(target).contains("stale.txt"))
        // --force does not wipe a directory that is not an explode output.
        let other = scratch.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: other.appendingPathComponent("notes.txt"))
        #expect(throws: ClipKitError.self) { _ = try Exploder(options: ExplodeOptions(force: true)).explode(input, into: other) }
        #expect(listing(other) == ["notes.txt"])
    }

    @Test func forceNeverReplacesADirectoryHoldingTheInputOrAForeignManifest() throws {
        let scratch = Fixture.scratchDirectory()
        let dir = scratch.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let input = dir.appendingPathComponent("a.gif")
        try FileManager.default.copyItem(at: Fixture.url("gif/loop_five.gif"), to: input)
        // Any frames.json at all used to be enough: `{}` made the input's own directory replaceable.
        try Data("{}".utf8).write(to: dir.appendingPathComponent("frames.json"))
        #expect(throws: ClipKitError.self) { _ = try Exploder(options: ExplodeOptions(force: true)).explode(input, into: dir) }
        #expect(listing(dir) == ["a.gif", "frames.json"])
        // Even a real explode output is kept when the input lies inside it.
        let real = scratch.appendingPathComponent("real")
        _ = try Exploder().explode(input, into: real)
        let inside = real.appendingPathComponent("frame_0000.png")
        #expect(throws: ClipKitError.self) { _ = try Exploder(options: ExplodeOptions(force: true)).explode(inside, into: real) }
        #expect(listing(real).count == 4)
    }

    @Test func manifestReaderRejectsMissingFilesAndBadDelays() throws {
        let target = Fixture.scratchDirectory().appendingPathComponent("t")
        let manifestURL = target.appendingPathComponent("frames.json")
        let manifest = try Exploder().explode(Fixture.url("gif/loop_zero.gif"), into: target).manifest
        #expect(try FramesManifest.read(from: manifestURL) == manifest)

        // Delays past a GIF image's 65535 cs are fine (gif carries them on); past 100 hours are not.
        var longDelay = manifest
        longDelay.frames[1].delayCs = 70000
        longDelay.frames[1].delayMs = 700000
        longDelay.durationMs = longDelay.frames.reduce(0) { $0 + $1.delayMs }
        try longDelay.write(to: manifestURL)
        #expect(try FramesManifest.read(from: manifestURL).frames[1].delayCs == 70000)
        var badDelay = manifest
        badDelay.frames[1].delayCs = 36_000_001
        badDelay.frames[1].delayMs = 360_000_010
        badDelay.durationMs = badDelay.frames.reduce(0) { $0 + $1.delayMs }
        try badDelay.write(to: manifestURL)
        #expect(throws: ClipKitError.self) { _ = try FramesManifest.read(from: manifestURL) }

        var mismatch = manifest
        mismatch.frames[0].delayMs = 55
        try mismatch.write(to: manifestURL)
        #expect(throws: ClipKitError.self) { _ = try FramesManifest.read(from: manifestURL) }

        try manifest.write(to: manifestURL)
        try FileManager.default.removeItem(at: target.appendingPathComponent("frame_0001.png"))
        do {
            _ = try FramesManifest.read(from: manifestURL)
            Issue.record("a missing frame file was accepted")
        } catch let error as ClipKitError {
            #expect(error.description.contains("frame_0001.png"))
        }

        try Data("{\"source\": 1}".utf8).write(to: manifestURL)
        #expect(throws: ClipKitError.self) { _ = try FramesManifest.read(from: manifestURL) }
    }

    /// Frame n of counter.mp4 is a solid colour R = 8 + 16 * (n % 16), G = 8 + 16 * ((n / 16) % 16), B = 200.
    func checkCounterColour(_ image: RGBAImage, frame n: Int) {
        let (r, g, b, a) = image.pixel(x: 80, y: 60)
        #expect(abs(Int(r) - (8 + 16 * (n % 16))) <= 4, "frame \(n) red \(r)")
        #expect(abs(Int(g) - (8 + 16 * ((n / 16) % 16))) <= 4, "frame \(n) green \(g)")
        #expect(abs(Int(b) - 200) <= 4 && a == 255, "frame \(n) blue \(b)")
    }

    @Test func explodesAVideo() throws {
        let input = Fixture.url("video/counter.mp4")
        try #require(FileManager.default.fileExists(atPath: input.path))
        let target = Fixture.scratchDirectory().appendingPathComponent("v")
        let manifest = try Exploder().explode(input, into: target).manifest
        #expect(manifest.frames.count == 120)
        #expect(manifest.canvas == .init(width: 160, height: 120))
        #expect(manifest.loopCount == 0, "loops forever, as its GIF")
        #expect(manifest.durationMs == 4000)
        // 30 fps in centiseconds, rounded cumulatively (0, 3.33, 6.67, 10 -> 0, 3, 7, 10): 3, 4, 3, ...
        #expect(Array(manifest.frames.prefix(6).map(\.delayCs)) == [3, 4, 3, 3, 4, 3])
        #expect(manifest.frames.allSatisfy { $0.disposal == "none" && $0.width == 160 && !$0.interlaced })
        for n in [0, 1, 17, 119] {
            checkCounterColour(try PNGReader.read(target.appendingPathComponent(String(format: "frame_%04d.png", n))), frame: n)
        }
        #expect(try FramesManifest.read(from: target.appendingPathComponent("frames.json")) == manifest)
    }

    @Test func explodesAVideoAtAChosenRateAndSelection() throws {
        let input = Fixture.url("video/counter.mp4")
        try #require(FileManager.default.fileExists(atPath: input.path))
        let target = Fixture.scratchDirectory().appendingPathComponent("v")
        let options = ExplodeOptions(frames: try FrameSelection(parsing: "0,5-6"), fps: 10)
        let manifest = try Exploder(options: options).explode(input, into: target).manifest
        #expect(manifest.frames.map(\.file) == ["frame_0000.png", "frame_0005.png", "frame_0006.png"])
        #expect(manifest.frames.map(\.delayCs) == [10, 10, 10])
        // Output frame k at 10 fps is source frame 3k.
        checkCounterColour(try PNGReader.read(target.appendingPathComponent("frame_0005.png")), frame: 15)
        checkCounterColour(try PNGReader.read(target.appendingPathComponent("frame_0006.png")), frame: 18)
    }

    @Test func decidesGIFByContentNotName() throws {
        let scratch = Fixture.scratchDirectory()
        let renamed = scratch.appendingPathComponent("anim.mp4")
        try FileManager.default.copyItem(at: Fixture.url("gif/loop_five.gif"), to: renamed)
        #expect(Exploder.isGIF(renamed))
        #expect(!Exploder.isGIF(Fixture.url("video/counter.mp4")))
        let manifest = try Exploder().explode(renamed, into: scratch.appendingPathComponent("out")).manifest
        #expect(manifest.loopCount == 5)
    }

    // MARK: - PNG writers

    @Test func writerLayoutIsFixedAndShrinksWithMaxMemory() {
        let picture = 1 << 20
        func layout(_ maxMemory: Int, caller: Int = 2) -> FrameWriterStage.Layout? {
            var limits = Limits()
            limits.maxMemory = maxMemory
            return FrameWriterStage.layout(pictureBytes: picture, callerPictures: caller, limits: limits)
        }
        #expect(layout(Limits().maxMemory) == .twoWriters)
        // Never more writers, however much memory (or however many cores).
        #expect(layout(Int.max) == .twoWriters)
        #expect(FrameWriterStage.Layout.twoWriters.workers == 2)
        // Two writers hold 5 pictures besides the caller's: one queued and one encoding each, and
        // the caller's next. One writer holds 4 (two queued), as before there were two.
        #expect(layout(7 * picture) == .twoWriters)
        #expect(layout(7 * picture - 1) == .oneWriter)
        #expect(layout(6 * picture) == .oneWriter)
        #expect(layout(6 * picture - 1) == nil)
        #expect(layout(11 * picture, caller: 6) == .twoWriters)
        #expect(layout(10 * picture, caller: 6) == .oneWriter)
        #expect(layout(9 * picture, caller: 6) == nil)
    }

    /// The files and frames.json are the same byte for byte whichever threads write them: two
    /// writers, one, or the caller's thread (as `--max-memory` shrinks).
    @Test func everyWriterLayoutWritesTheSameFiles() throws {
        let scratch = Fixture.scratchDirectory()
        let video = Fixture.url("video/counter.mp4")
        let gif = scratch.appendingPathComponent("counter.gif")
        _ = try GIFConverter().convert(video: video, to: gif)
        for (input, callerPictures) in [(gif, 2), (video, 6)] {
            let reference = scratch.appendingPathComponent("\(input.lastPathComponent)-default")
            let manifest = try Exploder().explode(input, into: reference).manifest
            #expect(manifest.frames.count >= 40)
            let files = listing(reference)
            let pictureBytes = manifest.canvas.width * manifest.canvas.height * 4
            let cases: [(pictures: Int, layout: FrameWriterStage.Layout?)] = [
                (callerPictures + 5, .twoWriters), (callerPictures + 4, .oneWriter), (callerPictures + 3, nil),
            ]
            for (pictures, expected) in cases {
                var options = ExplodeOptions()
                options.limits.maxMemory = pictures * pictureBytes
                #expect(FrameWriterStage.layout(pictureBytes: pictureBytes, callerPictures: callerPictures,
                                                limits: options.limits) == expected)
                let target = scratch.appendingPathComponent("\(input.lastPathComponent)-\(pictures)")
                _ = try Exploder(options: options).explode(input, into: target)
                #expect(listing(target) == files)
                for file in files {
                    let a = try Data(contentsOf: reference.appendingPathComponent(file))
                    let b = try Data(contentsOf: target.appendingPathComponent(file))
                    #expect(a == b, "\(input.lastPathComponent) \(file) differs with room for \(pictures) pictures")
                }
            }
        }
    }
}
