// Storyboards read back as a player would: every sheet decoded, the VTT parsed, each tile compared with the frame at its time.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

/// A storyboard written by `Storyboarder` and read back: its manifest, its WebVTT cues (parsed by
/// the test's own reader) and every sheet decoded (PNG by libpng, JPEG and WebP by libavcodec).
struct WrittenStoryboard {
    let result: Storyboarder.Result
    let track: ThumbnailTrack
    let sheets: [String: RGBAImage]
    var manifest: StoryboardManifest { result.manifest }

    init(_ fixture: String, _ options: StoryboardOptions, into directory: URL? = nil) throws {
        let directory = directory ?? Fixture.scratchDirectory().appendingPathComponent("out.storyboard")
        result = try Storyboarder(options: options).makeStoryboard(of: Fixture.url("video/\(fixture)"), in: directory)
        track = try ThumbnailTrack(contentsOf: directory.appendingPathComponent(StoryboardManifest.vttName))
        var sheets: [String: RGBAImage] = [:]
        for sheet in result.manifest.sheets {
            sheets[sheet.file] = try Self.decode(directory.appendingPathComponent(sheet.file))
        }
        self.sheets = sheets
    }

    /// A sheet's pixels: PNG through libpng, JPEG and WebP through libavformat and libavcodec.
    static func decode(_ url: URL) throws -> RGBAImage {
        if url.pathExtension == "png" { return try PNGReader.read(url) }
        let frames = try VideoReader(url: url).frames(options: FrameReadOptions(maxFrames: 1))
        defer { frames.cancel() }
        return try #require(try frames.next()).image
    }

    /// The picture of cue `index`, cut from its decoded sheet where the VTT says it is.
    func tile(_ index: Int) throws -> RGBAImage {
        let cue = track.cues[index]
        let sheet = try #require(sheets[cue.file], "cue \(index) names \(cue.file), which is not a sheet")
        #expect(cue.x >= 0 && cue.y >= 0 && cue.x + cue.width <= sheet.width && cue.y + cue.height <= sheet.height,
                "cue \(index) lies outside \(cue.file) (\(sheet.width)x\(sheet.height))")
        return crop(sheet, x: cue.x, y: cue.y, width: cue.width, height: cue.height)
    }

    /// The checks every storyboard must pass: cues cover the clip once, in order, one per tile;
    /// each names the tile size and a place on a sheet of the size the manifest records.
    func checkStructure(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(track.coverageProblem(durationMs: manifest.durationMs) == nil, "\(track.coverageProblem(durationMs: manifest.durationMs) ?? "")",
                sourceLocation: sourceLocation)
        #expect(track.cues.count == manifest.tiles.count, sourceLocation: sourceLocation)
        for (cue, tile) in zip(track.cues, manifest.tiles) {
            #expect(cue.startMs == tile.startMs && cue.endMs == tile.endMs, sourceLocation: sourceLocation)
            #expect(cue.file == manifest.sheets[tile.sheet].file && cue.x == tile.x && cue.y == tile.y, sourceLocation: sourceLocation)
            #expect(cue.width == manifest.tile.width && cue.height == manifest.tile.height, sourceLocation: sourceLocation)
        }
        for sheet in manifest.sheets {
            #expect(sheets[sheet.file].map { ($0.width, $0.height) == (sheet.width, sheet.height) } == true,
                    "\(sheet.file) decodes to another size", sourceLocation: sourceLocation)
        }
        #expect(manifest.sheets.map(\.tiles).reduce(0, +) == manifest.tiles.count, sourceLocation: sourceLocation)
    }
}

func crop(_ image: RGBAImage, x: Int, y: Int, width: Int, height: Int) -> RGBAImage {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * 4)
    for row in y..<(y + height) {
        let start = (row * image.width + x) * 4
        pixels += image.pixels[start..<(start + width * 4)]
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

/// The frame on screen at `seconds`, scaled to `width` x `height`: the thumbnail path (a seek and
/// a frame-accurate decode), independent of the storyboard's sampling.
func frame(_ fixture: String, at seconds: Double, width: Int, height: Int) throws -> RGBAImage {
    try Thumbnailer(options: ThumbnailOptions(position: .seconds(seconds), size: .exact(width: width, height: height)))
        .thumbnail(of: Fixture.url("video/\(fixture)"))
}

@Suite struct StoryboarderTests {
    /// Each tile is the frame on screen at its time: much closer to that frame than to the
    /// frames a tick before or after (the clip moves), within what the format loses. (testsrc2's
    /// saturated colour bars lose about 6 levels to 4:2:0 chroma alone, at any JPEG or WebP quality.)
    @Test(arguments: [(StillImageFormat.jpeg, 9.0), (.webp, 8.0), (.png, 0.0)])
    func tilesShowTheFrameAtTheirTime(_ format: StillImageFormat, _ bound: Double) throws {
        var options = StoryboardOptions(spacing: .interval(0.25), format: format)
        options.columns = 5
        let board = try WrittenStoryboard("motion.mp4", options)
        board.checkStructure()
        #expect(board.manifest.tiles.count == 12 && board.manifest.durationMs == 3000)
        #expect(board.manifest.tile.width == 160 && board.manifest.tile.height == 90)
        #expect(board.manifest.sheets.map(\.file) == ["sheet_0.\(format.fileExtension)"])
        #expect(board.manifest.sheets.first.map { ($0.width, $0.height) == (800, 270) } == true, "5 columns, 3 rows")
        for i in 0..<12 {
            let tile = try board.tile(i)
            let right = try frame("motion.mp4", at: 0.25 * Double(i), width: 160, height: 90)
            let error = meanAbsoluteDifference(tile, right)
            #expect(error <= bound, "tile \(i): mean error \(error) against the frame at its time")
            let other = try frame("motion.mp4", at: 0.25 * Double(i == 11 ? 10 : i + 1), width: 160, height: 90)
            #expect(meanAbsoluteDifference(tile, other) > error + 4, "tile \(i) is as close to another tick's frame")
        }
    }

    /// The counter clip shows its frame number as a colour: tile i at 0.5 s steps is frame 15 i.
    @Test func counterTilesAreTheExactFrames() throws {
        let board = try WrittenStoryboard("counter.mp4", StoryboardOptions(spacing: .interval(0.5)))
        board.checkStructure()
        #expect(board.track.cues.map(\.startMs) == [0, 500, 1000, 1500, 2000, 2500, 3000, 3500])
        #expect(board.track.cues.last?.endMs == 4000)
        for i in 0..<8 {
            #expect(counterFrame(try board.tile(i).pixel(x: 80, y: 60)) == 15 * i, "tile \(i)")
            #expect(board.manifest.tiles[i].frameMs == 500 * i)
        }
    }

    /// `--keyframes` decodes keyframes only (counter.mp4: 0, 1, 2, 3 s) and gives each tile the
    /// nearest one, the earlier on a tie; tiles after the last keyframe get the last.
    @Test func keyframesGiveTheNearestKeyframe() throws {
        let board = try WrittenStoryboard("counter.mp4", StoryboardOptions(spacing: .interval(0.4), keyframesOnly: true))
        board.checkStructure()
        #expect(board.manifest.keyframes)
        let expected = [0, 0, 1000, 1000, 2000, 2000, 2000, 3000, 3000, 3000]  // ticks 0, 0.4, ..., 3.6 s
        #expect(board.manifest.tiles.map(\.frameMs) == expected)
        for (i, ms) in expected.enumerated() {
            #expect(counterFrame(try board.tile(i).pixel(x: 80, y: 60)) == ms * 30 / 1000, "tile \(i)")
        }
        #expect(board.track.cues.last?.endMs == 4000)
    }

    @Test func rotatedClipGivesUprightTiles() throws {
        let board = try WrittenStoryboard("rotated90.mov", StoryboardOptions(spacing: .interval(0.5)))
        board.checkStructure()
        #expect(board.manifest.tile.width == 160 && board.manifest.tile.height == 213)
        // Shown turned 90 clockwise: top-left blue, top-right red, bottom-left white, bottom-right green.
        for i in board.track.cues.indices {
            let tile = try board.tile(i)
            let tl = tile.pixel(x: 20, y: 20), tr = tile.pixel(x: 140, y: 20)
            let bl = tile.pixel(x: 20, y: 190), br = tile.pixel(x: 140, y: 190)
            #expect(tl.b > 200 && tl.r < 60 && tr.r > 200 && tr.g < 60, "tile \(i): \(tl) \(tr)")
            #expect(bl.r > 200 && bl.g > 200 && bl.b > 200 && br.g > 200 && br.r < 60, "tile \(i): \(bl) \(br)")
        }
    }

    @Test func anamorphicTilesKeepTheDisplayAspect() throws {
        let board = try WrittenStoryboard("anamorphic.mp4", StoryboardOptions())
        #expect(board.manifest.tile.width == 160 && board.manifest.tile.height == 90, "120x120 at 16:9 pixels shows 213x120")
    }

    /// Tiles beyond one sheet go on further sheets; the last is cropped to its rows; names are
    /// zero-padded when there are more than ten.
    @Test func manySheets() throws {
        var options = StoryboardOptions(spacing: .interval(0.1))
        options.columns = 4
        options.tilesPerSheet = 16
        let board = try WrittenStoryboard("counter.mp4", options)
        board.checkStructure()
        #expect(board.manifest.sheets.map(\.file) == ["sheet_0.jpg", "sheet_1.jpg", "sheet_2.jpg"])
        #expect(board.manifest.sheets.map { [$0.width, $0.height, $0.tiles] } == [[640, 480, 16], [640, 480, 16], [640, 240, 8]])
        for i in board.track.cues.indices {
            #expect(counterFrame(try board.tile(i).pixel(x: 80, y: 60)) == 3 * i, "tile \(i)")
        }
        options.tilesPerSheet = 3
        let many = try WrittenStoryboard("counter.mp4", options)
        many.checkStructure()
        #expect(many.manifest.sheets.count == 14)
        #expect(many.manifest.sheets.first?.file == "sheet_00.jpg" && many.manifest.sheets.last?.file == "sheet_13.jpg")
        #expect(many.manifest.sheets.last.map { [$0.width, $0.height] } == [160, 120], "one tile on the last sheet")
    }

    /// A picture 205 times taller than wide (tall.mp4, 32x6560) gives tiles at its own size, and
    /// ten rows of them (65600 px) are more than a JPEG can hold: the default storyboard failed
    /// with "use fewer --columns". Sheets now get as many rows as the format allows, 9 for JPEG
    /// and 2 for WebP (16383 px), with the columns asked for.
    @Test func tallTilesGetFewerRowsPerSheet() throws {
        let board = try WrittenStoryboard("tall.mp4", StoryboardOptions())
        board.checkStructure()
        #expect(board.manifest.tile.width == 32 && board.manifest.tile.height == 6560)
        #expect(board.manifest.columns == 10 && board.manifest.tilesPerSheet == 90)
        #expect(board.manifest.sheets.map { [$0.width, $0.height, $0.tiles] } == [[64, 6560, 2]])
        #expect(try [0, 1].map { counterFrame(try board.tile($0).pixel(x: 16, y: 3280)) } == [0, 10])

        let many = try WrittenStoryboard("tall.mp4", StoryboardOptions(spacing: .interval(0.02)))
        many.checkStructure()
        #expect(many.manifest.sheets.map { [$0.width, $0.height, $0.tiles] } == [[320, 59040, 90], [320, 6560, 10]])
        for i in many.track.cues.indices {
            let tile = try many.tile(i)
            #expect(counterFrame(tile.pixel(x: 16, y: 10)) == i / 5 && counterFrame(tile.pixel(x: 16, y: 6550)) == i / 5, "tile \(i)")
        }

        let webp = try WrittenStoryboard("tall.mp4", StoryboardOptions(spacing: .interval(0.05), format: .webp))
        webp.checkStructure()
        #expect(webp.manifest.columns == 10 && webp.manifest.tilesPerSheet == 20)
        #expect(webp.manifest.sheets.map { [$0.width, $0.height, $0.tiles] } == [[320, 13120, 20], [320, 13120, 20]])
        for i in webp.track.cues.indices {
            #expect(counterFrame(try webp.tile(i).pixel(x: 16, y: 3280)) == i / 2, "tile \(i)")
        }
    }

    @Test func countSpreadsTilesOverTheClip() throws {
        let board = try WrittenStoryboard("counter.mp4", StoryboardOptions(spacing: .count(3)))
        board.checkStructure()
        #expect(board.track.cues.map { [$0.startMs, $0.endMs] } == [[0, 1333], [1333, 2667], [2667, 4000]])
        #expect(board.manifest.tiles.map(\.frameMs) == [0, 1333, 2667])
    }

    /// A clip shorter than one interval, or a still picture: one tile for all of it.
    @Test func shortClipsAndStillsGiveOneTile() throws {
        let short = try WrittenStoryboard("counter.mp4", StoryboardOptions(spacing: .interval(10)))
        short.checkStructure()
        #expect(short.track.cues.map { [$0.startMs, $0.endMs] } == [[0, 4000]])
        for (name, duration) in [("still.png", 40), ("still.jpg", 40), ("still_over_audio.mp4", 3000)] {
            let still = try WrittenStoryboard(name, StoryboardOptions(spacing: .count(10)))
            still.checkStructure()
            #expect(still.track.cues.map { [$0.startMs, $0.endMs] } == [[0, duration]], "\(name)")
            #expect(still.manifest.tile.width == 64 && still.manifest.tile.height == 48, "never upscaled")
            let reference = try frame(name, at: 0, width: 64, height: 48)
            #expect(meanAbsoluteDifference(try still.tile(0), reference) < 9, "\(name)")
        }
    }

    /// A tile larger than the source is clamped to the source's size, never upscaled.
    @Test func tilesAreNeverLargerThanTheSource() throws {
        for size in [FrameSize.width(640), .fit(width: 1000, height: 1000)] {
            let board = try WrittenStoryboard("counter.mp4", StoryboardOptions(spacing: .interval(1), tileSize: size))
            #expect(board.manifest.tile.width == 160 && board.manifest.tile.height == 120)
            board.checkStructure()
        }
        let boxed = try WrittenStoryboard("motion.mp4", StoryboardOptions(spacing: .interval(1), tileSize: .fit(width: 100, height: 100)))
        #expect(boxed.manifest.tile.width == 100 && boxed.manifest.tile.height == 56)
    }

    /// A file whose frames stop before its header's duration (2 s): tiles up to what decodes, the
    /// last cue ending there. Decoding keyframes only cannot see where the other frames stop:
    /// the header's duration stands, every tile showing the one keyframe.
    @Test func truncatedClipEndsWhereItsFramesDo() throws {
        let board = try WrittenStoryboard("truncated_faststart.mp4", StoryboardOptions(spacing: .interval(0.25)))
        board.checkStructure()
        #expect(board.manifest.durationMs < 2000 && board.manifest.durationMs >= 900, "\(board.manifest.durationMs)")
        let keyframes = try WrittenStoryboard("truncated_faststart.mp4", StoryboardOptions(spacing: .interval(0.25), keyframesOnly: true))
        keyframes.checkStructure()
        #expect(keyframes.manifest.durationMs == 2000 && keyframes.manifest.tiles.allSatisfy { $0.frameMs == 0 })
    }

    /// A WebM whose frames run from -1.3 s, its header saying 2.7 s (where the timestamps end):
    /// the clip is 4 s of frames (as `info` and `gif` have it), and the cues cover all of it.
    /// They ended at 2.7 s, tiles counted from the first frame: its last 1.3 s in no cue.
    @Test func aClipStartingBeforeZeroIsCoveredToItsEnd() throws {
        let url = Fixture.url("video/seek_negts.webm")
        let length = try #require(try StreamTiming.measure(url).duration(header: VideoReader(url: url).info.duration))
        #expect(abs(length - 4) < 0.001)
        let board = try WrittenStoryboard("seek_negts.webm", StoryboardOptions(spacing: .interval(0.5)))
        board.checkStructure()
        #expect(board.manifest.durationMs == 4000 && board.track.cues.last?.endMs == 4000, "\(board.manifest.durationMs)")
        #expect(board.manifest.tiles.count == 8 && board.manifest.tiles.last.map { $0.frameMs >= 3480 } == true,
                "\(board.manifest.tiles.map(\.frameMs))")
        // thumb --at 50% is at 2 s of the 4.
        let half = try Thumbnailer(options: ThumbnailOptions(position: .fraction(0.5), size: .original)).thumbnail(of: url)
        let at2 = try Thumbnailer(options: ThumbnailOptions(position: .seconds(2), size: .original)).thumbnail(of: url)
        #expect(half == at2)
    }

    /// Matroska from 10 hours: its segment duration (36,004 s) counts from zero; the clip is
    /// 4 s. `info` said 36,004 s, `gif` and `storyboard` refused it as over an hour, and
    /// `thumb --at 50%` warned that the frames end short of the header.
    @Test func aMatroskaStreamFromTenHoursIsItsFourSeconds() throws {
        let url = Fixture.url("video/offset_10h.mkv")
        #expect(try VideoReader(url: url).info.duration == 4)
        let board = try WrittenStoryboard("offset_10h.mkv", StoryboardOptions(spacing: .interval(1)))
        board.checkStructure()
        #expect(board.manifest.durationMs == 4000 && board.manifest.tiles.count == 4, "\(board.manifest.durationMs)")
        let gif = try GIFConverter(options: GIFOptions()).convert(video: url, to: Fixture.scratchDirectory().appendingPathComponent("o.gif"))
        #expect(gif.frameCount == 40 && gif.warnings.isEmpty, "\(gif.frameCount) \(gif.warnings)")
        // --at 50% is the frame at 2 s (counter frame 60), without a warning.
        let half = try Thumbnailer(options: ThumbnailOptions(position: .fraction(0.5), size: .original)).thumbnail(of: url)
        let at2 = try Thumbnailer(options: ThumbnailOptions(position: .seconds(2), size: .original)).thumbnail(of: url)
        #expect(half == at2)
        let plain = try Thumbnailer(options: ThumbnailOptions(position: .seconds(2), size: .original)).thumbnail(of: Fixture.url("video/counter.mp4"))
        #expect(half == plain)
    }

    /// Matroska gives its streams no length of their own; the container's runs to the end of
    /// its audio, 40 ms past the last frame here. The GIF lasts the video's 1.00 s (it lasted
    /// 1.04 s, its last tick a 4 cs frame of its own), as ffmpeg's does.
    @Test func aMatroskaClipWhoseAudioRunsOnEndsWithItsLastFrame() throws {
        let url = Fixture.url("video/audio_longer.mkv")
        let gif = try GIFConverter(options: GIFOptions()).convert(video: url, to: Fixture.scratchDirectory().appendingPathComponent("a.gif"))
        #expect(gif.durationCentiseconds == 100, "\(gif.durationCentiseconds) cs")
        let delays = try GIFDecoder(url: gif.url).remainingDelays()
        #expect(delays.allSatisfy { $0 >= 10 } && delays.reduce(0, +) == 100, "\(delays)")
    }

    @Test func sameInputGivesTheSameBytes() throws {
        for format in StillImageFormat.allCases {
            var digests: [[Data]] = []
            for _ in 0..<2 {
                let directory = Fixture.scratchDirectory().appendingPathComponent("x.storyboard")
                let result = try Storyboarder(options: StoryboardOptions(spacing: .interval(0.5), format: format))
                    .makeStoryboard(of: Fixture.url("video/motion.mp4"), in: directory)
                digests.append(try result.manifest.files.map { try Data(contentsOf: directory.appendingPathComponent($0)) })
            }
            #expect(digests[0] == digests[1], "\(format)")
        }
    }

    @Test func manifestReadsBack() throws {
        let directory = Fixture.scratchDirectory().appendingPathComponent("m.storyboard")
        var options = StoryboardOptions(spacing: .interval(0.5))
        options.fingerprint = .hashingInput(options: options.fingerprintOptions)
        let result = try Storyboarder(options: options).makeStoryboard(of: Fixture.url("video/counter.mp4"), in: directory)
        #expect(try StoryboardManifest.read(from: directory.appendingPathComponent(StoryboardManifest.fileName)) == result.manifest)
        #expect(CLIFiles.names(in: directory) == ["sheet_0.jpg", "storyboard.json", "storyboard.vtt"])
        let expected = Fingerprint(contentHash: try ContentHash.ofFile(Fixture.url("video/counter.mp4")), options: options.fingerprintOptions)
        #expect(Fingerprint.recorded(in: directory) == expected)
    }
}

/// File names in a directory, hidden ones included, sorted.
enum CLIFiles {
    static func names(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}
