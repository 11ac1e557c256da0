// `--at` against ffmpeg decoding from the start, on files whose keyframe flags, GOPs or first packets mislead a seek.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

/// Each frame ffmpeg decodes from the very beginning (no seek), with its time from the stream start.
struct ReferenceDecode {
    var times: [Double] = []
    var frames: [[UInt8]] = []
    let width: Int, height: Int

    /// `origin`: the stream's start time (nil: the first frame's).
    init(_ url: URL, width: Int, height: Int, origin: Double? = nil) throws {
        self.width = width
        self.height = height
        let ffmpeg = try #require(FFmpegReference.ffmpeg)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-nostdin", "-loglevel", "info", "-i", url.path, "-fps_mode", "passthrough",
                             "-vf", "showinfo", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let log = Box<Data>()
        let reader = Thread { log.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: log.wait(), as: UTF8.self)
        let stamps = text.split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("showinfo"), let range = line.range(of: "pts_time:") else { return nil }
            return Double(line[range.upperBound...].prefix { !$0.isWhitespace })
        }
        let size = width * height * 3
        frames = stride(from: 0, to: data.count - size + 1, by: size).map { [UInt8](data[$0..<($0 + size)]) }
        let start = origin ?? stamps.min() ?? 0
        times = stamps.map { $0 - start }
    }

    /// The index of the frame on screen at `time`: the last at or before it (the first if none is).
    func shown(at time: Double) -> Int {
        times.indices.last { times[$0] <= time + 1e-6 } ?? 0
    }

    /// Mean absolute difference (levels, RGB) between `image` and reference frame `index`.
    func difference(_ image: RGBAImage, _ index: Int) -> Double {
        var total = 0
        let frame = frames[index]
        for p in 0..<(width * height) {
            for c in 0..<3 { total += abs(Int(image.pixels[p * 4 + c]) - Int(frame[p * 3 + c])) }
        }
        return Double(total) / Double(width * height * 3)
    }
}

@Suite struct SeekExactnessTests {
    /// The frame `--at` gives is the one ffmpeg's decode from the beginning shows at that time,
    /// and clean (a frame decoded from made-up references is 40 to 100 levels off; the same
    /// frame through two YUV converters is within 4).
    static func expectExact(_ name: String, at targets: [Double], origin: Double? = nil) throws {
        let url = Fixture.url("video/\(name)")
        let reference = try ReferenceDecode(url, width: 128, height: 96, origin: origin)
        #expect(reference.frames.count == reference.times.count && reference.frames.count > 10, "\(name)")
        for target in targets {
            let thumb = try Thumbnailer(options: ThumbnailOptions(position: .seconds(target), size: .original)).thumbnail(of: url)
            let expected = reference.shown(at: target)
            let differences = reference.frames.indices.map { reference.difference(thumb, $0) }
            let best = differences.indices.min { differences[$0] < differences[$1] }!
            #expect(differences[expected] < 8, """
                \(name) at \(target): \(differences[expected]) levels from the frame at \(reference.times[expected]); \
                closest is the frame at \(reference.times[best]) (\(differences[best]))
                """)
        }
    }

    /// An H.263 3GP whose sync table calls the P-frames at 3.6, 6.8 and 10.2 s keyframes (real
    /// I-frames at 0 and 9.0 s): seeks that land there decoded P-frames over nothing.
    @Test func syncTableListingPFrames() throws {
        try Self.expectExact("seek_synclie.3gp", at: [1, 3.7, 4.5, 6.9, 8.1, 9.1, 10.3, 11.5])
    }

    /// H.264 with B-frames in an AVI whose index flags every frame key (as some capture tools
    /// write it; made here from avi_h264_bframes.avi): a seek lands on a P-frame, the decoder
    /// gives nothing until the next real keyframe, and that wait was taken for its delay in
    /// timing pictures by decode order, so the keyframe was timed at the target: `--at 0.5`
    /// showed counter 16 where a full decode shows 12.
    @Test func anAVIIndexFlaggingEveryFrameKey() throws {
        let dir = Fixture.scratchDirectory()
        var avi = [UInt8](try Data(contentsOf: Fixture.url("video/avi_h264_bframes.avi")))
        let index = try #require(avi.indices.dropLast(8).first { avi[$0..<($0 + 4)].elementsEqual("idx1".utf8) })
        let size = Int(avi[index + 4]) | Int(avi[index + 5]) << 8 | Int(avi[index + 6]) << 16 | Int(avi[index + 7]) << 24
        var flagged = 0
        for entry in stride(from: index + 8, to: min(index + 8 + size, avi.count - 15), by: 16) where avi[(entry + 2)..<(entry + 4)].elementsEqual("dc".utf8) {
            avi[entry + 4] |= 0x10  // AVIIF_KEYFRAME
            flagged += 1
        }
        #expect(flagged == 100)
        let file = dir.appendingPathComponent("allkey.avi")
        try Data(avi).write(to: file)
        for at in [0.5, 1.1, 2.3, 3.5] {
            let run = try CLI.run(["thumb", file.path, "--at", String(at), "--size", "0", "-o", "t.png", "--force"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Self.counter(PNGReader.read(dir.appendingPathComponent("t.png"))) == Int(at * 25), "--at \(at)")
        }
    }

    /// HEVC in MPEG-TS (no index, open GOPs): a seek lands mid-GOP.
    @Test func hevcTransportStreamLandingMidGOP() throws {
        try Self.expectExact("seek_midgop_hevc.ts", at: [0.5, 2.1, 3.7, 4.5, 6.9, 7.5, 10.3, 11.5])
    }

    /// I/I/B/B/I/B/B at 1 fps with an edit list: the B-frames before each I, and the last frames
    /// (a P-frame that references the GOP before its keyframe, dropped by the decoder after a
    /// seek there: `--at 10` gave the frame at 9).
    @Test func bFramesEditListAndTheLastFrames() throws {
        try Self.expectExact("seek_bframes_edit.mp4", at: [0, 0.5, 1, 1.5, 2, 3, 4, 5, 6.5, 8, 9, 9.5, 10, 10.5, 11])
    }

    /// Nothing decodes before the keyframe at 3.1 s (the sync table lists no earlier one): `--at`
    /// before it shows that first good frame, as `gif` does from 0, instead of "damaged file".
    @Test func beforeTheFirstDecodableFrame() throws {
        try Self.expectExact("seek_latekey.mp4", at: [0.4, 1, 2.8, 3.1, 4.5], origin: 0)
        let scratch = Fixture.scratchDirectory()
        let result = try CLI.run(["thumb", Fixture.url("video/seek_latekey.mp4").path, "--at", "1", "-o", "t.png"], in: scratch)
        #expect(result.status == 0)
        // The damage before it (its first packet does not decode), then where the frame came from.
        #expect(result.stderrLines.count == 2 && result.stderrLines[0].hasSuffix("damaged video data: 1 packet could not be decoded (Invalid data found when processing input), the frame before left on screen")
                    && result.stderrLines[1].hasSuffix("no frame decodes at 1.000s; took the first that does, at 3.100s"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("t.png").path))
    }

    /// Cuts made with `-ss 1.3 -c copy -avoid_negative_ts disabled` keep the pictures before the
    /// cut at times no index lists (Matroska: none, the first 33 are untimed; WebM: -1.3 s, and
    /// cue times are unsigned), so a seek to the beginning lands on the first keyframe listed
    /// (0.56 s; 2.0 s from the start) and reports success. `--at` before it gave that keyframe
    /// with a warning that nothing decodes earlier, `gif --start` without one. Every target now
    /// gives the frame a decode without any seek shows then.
    @Test(arguments: ["cut_negts.mkv", "seek_negts.webm"])
    func seekToTheBeginningLandingLate(_ name: String) throws {
        let url = Fixture.url("video/\(name)")
        let full = try VideoReader(url: url).frames(options: FrameReadOptions())
        var reference: [VideoFrame] = []
        while let frame = try full.next() { reference.append(frame) }
        #expect(reference.count == (name.hasSuffix(".mkv") ? 64 : 100))
        for target in [0.1, 0.3, 0.5, 1.0, 1.5, 1.9] {
            let expected = try #require(reference.last { $0.sourceTime <= target + 1e-6 })
            let thumb = try Thumbnailer(options: ThumbnailOptions(position: .seconds(target), size: .original)).thumbnail(of: url)
            #expect(Self.counter(thumb) == Self.counter(expected.image) && thumb.pixels == expected.image.pixels,
                    "\(name) at \(target): counter \(Self.counter(thumb)), the frame at \(expected.sourceTime) is \(Self.counter(expected.image))")
        }

        // The command of the report: counter 48 is on screen at 0.5 s (36 at 0, one every 40 ms).
        let scratch = Fixture.scratchDirectory()
        let first = name.hasSuffix(".mkv") ? 36 : 0
        let thumb = try CLI.run(["thumb", "--at", "0.5", url.path, "-o", "t.png"], in: scratch)
        #expect(thumb.status == 0 && thumb.stderr.isEmpty, "\(thumb.stderr)")
        #expect(try Self.counter(PNGReader.read(scratch.appendingPathComponent("t.png"))) == first + 12)
        // gif --start decodes from the same seek: 0.5 s and 0.6 s at 10 fps.
        let gif = try CLI.run(["gif", url.path, "--start", "0.5", "--duration", "0.2", "-o", "g.gif"], in: scratch)
        #expect(gif.status == 0, "\(gif.stderr)")
        #expect(try Decoded.gif(scratch.appendingPathComponent("g.gif")).canvases.map(Self.counter) == [first + 12, first + 15])
    }

    /// An MPEG-TS that begins inside a GOP (its first third cut off): the clip starts at the
    /// first frame a decoder shows, counter 50, as ffmpeg's output does. It was timed from the
    /// first packet, 0.8 s earlier, and that frame held over the lead: the GIF opened on a 0.8 s
    /// freeze, `info` said 2.8 s, `--at 50%` took counter 60.
    @Test func aTransportStreamCutMidGOPStartsAtItsFirstShownFrame() throws {
        let url = Fixture.url("video/ts_midgop.ts")
        #expect(try VideoReader(url: url).info.duration.map { abs($0 - 2) < 0.001 } == true)
        let scratch = Fixture.scratchDirectory()
        // Tick i (at i/10 s) shows counter 50 + 2.5 i.
        try Self.expectGIFTicks(url, first: 50, count: 20, in: scratch)
        try Self.expectThumbs(url, [("0", 50), ("50%", 75), ("1", 75)], in: scratch)
        // A stream that begins on a keyframe is as it was: the other TS fixtures start where their first packet does.
        #expect(try VideoReader(url: Fixture.url("video/seek_midgop_hevc.ts")).info.duration.map { abs($0 - 12) < 0.001 } == true)
    }

    /// An MPEG-TS of H.264 refreshed without keyframes (x264's intra-refresh), cut between
    /// recovery points: the decoder needs the packets from the recovery point (flagged key) on
    /// to rebuild the picture, and shows its first frame 1.5 s of packets later, as ffmpeg does
    /// (48 frames, 1.92 s). Those packets were left out as timed before the first frame shown,
    /// so nothing could be rebuilt: "no frame could be decoded" (with a refresh every second, the
    /// first second was lost).
    @Test func aTransportStreamRefreshedWithoutKeyframesStartsWhereItsDecoderDoes() throws {
        let url = Fixture.url("video/ts_intra_refresh.ts")
        let scratch = Fixture.scratchDirectory()
        let explode = try CLI.run(["explode", url.path, "-o", "frames", "--json"], in: scratch)
        #expect(explode.status == 0, "\(explode.stderr)")
        let frames = try Decoded.explode(scratch.appendingPathComponent("frames"))
        #expect(frames.delays.count == 48 && frames.delays.reduce(0, +) == 192, "\(frames.delays)")
        #expect(explode.stderr.isEmpty, "\(explode.stderr)")
        #expect(try VideoReader(url: url).info.duration.map { abs($0 - 1.92) < 0.001 } == true)
        // With B-frames the first good frame comes out after the next recovery point's packet
        // was sent: decoded from that one, the stream lost a refresh (6 frames of 27).
        let bframes = Fixture.url("video/ts_intra_refresh_bframes.ts")
        let counted = try CLI.run(["info", bframes.path, "--count-frames", "--json"], in: scratch)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(counted.stdout.utf8)) as? [String: Any])
        #expect(object["frame_count"] as? Int == 27 && object["duration_ms"] as? Int == 1080, "\(counted.stdout)")
    }

    /// An MPEG-TS of HEVC with open GOPs cut at a P picture three packets before a CRA: HEVC's
    /// decoder gives that P and the B pictures after it from references it makes up, flat grey,
    /// and the clip opened on them (a grey thumbnail, 2.2 s). It starts at the CRA, counter 50.
    @Test func anHEVCStreamCutBeforeACRAStartsAtIt() throws {
        let url = Fixture.url("video/hevc_open_gop_cut.ts")
        #expect(try VideoReader(url: url).info.duration.map { abs($0 - 2) < 0.001 } == true)
        let scratch = Fixture.scratchDirectory()
        try Self.expectThumbs(url, [("0", 50), ("50%", 75)], in: scratch)
        let explode = try CLI.run(["explode", url.path, "-o", "frames"], in: scratch)
        #expect(explode.status == 0, "\(explode.stderr)")
        #expect(try Decoded.explode(scratch.appendingPathComponent("frames")).delays.count == 50)
    }

    /// Three MPEG-TS files joined with cat, timed 1.4 s, 5001.4 s and 1.4 s again: the times
    /// are made continuous as ffmpeg makes them, for every product (they were a 5,001 s clip
    /// whose GIF held one frame for 83 minutes, and a second copy of a file was dropped as late).
    @Test func aTransportStreamJoinedFromPartsPlaysThemInTurn() throws {
        let url = Fixture.url("video/ts_joined.ts")
        #expect(try VideoReader(url: url).info.duration.map { abs($0 - 4) < 0.001 } == true)
        let scratch = Fixture.scratchDirectory()
        // Tick i (at i/10 s) shows counter 2.5 i, across both joins.
        try Self.expectGIFTicks(url, first: 0, count: 40, in: scratch)
        // Times inside each part are found (by decoding from the beginning: the file is not sought by timestamp).
        try Self.expectThumbs(url, [("1.6", 40), ("2.8", 70), ("3.5", 87), ("50%", 50), ("3.96", 99)], in: scratch)
        let cut = try CLI.run(["gif", url.path, "--start", "2.5", "--duration", "1", "-o", "cut.gif", "-q"], in: scratch)
        #expect(cut.status == 0, "\(cut.stderr)")
        let part = try Decoded.gif(scratch.appendingPathComponent("cut.gif"), keep: 10)
        #expect(part.canvases.map(Self.counter) == (25..<35).map { $0 * 5 / 2 }, "\(part.canvases.map(Self.counter))")
        var options = FrameReadOptions(fps: 2, size: .original)
        options.skipsBetweenTicks = true
        let frames = try VideoReader(url: url).frames(options: options)
        var tiles: [Int] = []
        while let frame = try frames.next() { tiles.append(Self.counter(frame.image)) }
        #expect(tiles == [0, 12, 25, 37, 50, 62, 75, 87], "\(tiles)")
    }

    /// An HLS fMP4 segment (init + the second 2 s segment): its length is its own 2.0 s, not where
    /// it ends counted from zero (4.0 s), and `--at` and storyboards count from its first frame,
    /// as the GIF does (unprobed, its start was unknown: every `--at` under 2.08 s gave the first
    /// frame with a warning, and `--at 50%` of 4.0 s lay past its first second).
    @Test func anHLSSegmentIsTimedFromItsFirstFrame() throws {
        let url = Fixture.url("video/hls_segment.mp4")
        let scratch = Fixture.scratchDirectory()
        let info = try CLI.run(["info", "--json", url.path], in: scratch)
        #expect(info.stdout.contains("\"duration_ms\":2000") || info.stdout.contains("\"duration_ms\": 2000"), "\(info.stdout)")
        try Self.expectThumbs(url, [("0", 50), ("1", 75), ("50%", 75), ("1.96", 99)], in: scratch)
        try Self.expectGIFTicks(url, first: 50, count: 20, in: scratch)
        let board = try CLI.run(["storyboard", url.path, "-o", "sb", "--interval", "0.5", "-q"], in: scratch)
        #expect(board.status == 0, "\(board.stderr)")
        let cues = try String(contentsOf: scratch.appendingPathComponent("sb/storyboard.vtt"), encoding: .utf8)
        #expect(cues.components(separatedBy: "-->").count - 1 == 4, "\(cues)")
    }

    /// MPEG-PS is sought by decode time, so the seek for frame 10 of 12 lands on frame 11, whose
    /// picture comes untimed out of the end code's packet: it was counted from 0 and shown for
    /// `--at 0.40` (and for 0.42). A picture without a timestamp is no landing.
    @Test func anUntimedPictureAfterASeekIsNoLanding() throws {
        let url = Fixture.url("video/ps_tail.mpg")
        let scratch = Fixture.scratchDirectory()
        try Self.expectThumbs(url, [("0.36", 9), ("0.40", 10), ("0.42", 10), ("0.44", 11), ("100%", 11)], in: scratch)
    }

    /// `gif` of `url` (10 fps) has `count` ticks of 10 cs, tick i showing counter `first` + 2.5 i.
    static func expectGIFTicks(_ url: URL, first: Int, count: Int, in scratch: URL) throws {
        let gif = try CLI.run(["gif", url.path, "-o", "g.gif", "-q", "--force"], in: scratch)
        #expect(gif.status == 0, "\(gif.stderr)")
        let decoded = try Decoded.gif(scratch.appendingPathComponent("g.gif"), keep: count)
        #expect(decoded.delays == Array(repeating: 10, count: count), "\(decoded.delays)")
        #expect(decoded.canvases.map(Self.counter) == (0..<count).map { first + $0 * 5 / 2 }, "\(decoded.canvases.map(Self.counter))")
    }

    /// `thumb --at` of `url` at each time shows the counter frame given, with nothing on stderr.
    static func expectThumbs(_ url: URL, _ expected: [(at: String, counter: Int)], in scratch: URL) throws {
        for (at, counter) in expected {
            let thumb = try CLI.run(["thumb", "--at", at, url.path, "-o", "t.png", "--force"], in: scratch)
            #expect(thumb.status == 0 && thumb.stderr.isEmpty, "\(at): \(thumb.stderr)")
            #expect(try Self.counter(PNGReader.read(scratch.appendingPathComponent("t.png"))) == counter, "--at \(at)")
        }
    }

    /// The counter fixture's frame number (R = 8 + 16*(n%16), G = 8 + 16*(n/16)).
    static func counter(_ image: RGBAImage) -> Int {
        let p = image.pixel(x: image.width / 2, y: image.height / 2)
        return Int(p.g) / 16 * 16 + Int(p.r) / 16
    }

    /// Storyboards seek between tiles the same way: every tile of the lying files is the frame
    /// a decode from the beginning shows at its time.
    @Test(arguments: ["seek_synclie.3gp", "seek_midgop_hevc.ts"])
    func storyboardTilesAreClean(_ name: String) throws {
        let url = Fixture.url("video/\(name)")
        let reference = try ReferenceDecode(url, width: 128, height: 96)
        var options = FrameReadOptions(fps: 1.0 / 1.3, size: .original)
        options.skipsBetweenTicks = true
        let frames = try VideoReader(url: url).frames(options: options)
        var count = 0
        while let frame = try frames.next() {
            let expected = reference.shown(at: frame.sourceTime)
            let difference = reference.difference(frame.image, expected)
            #expect(difference < 8 && abs(reference.times[expected] - frame.sourceTime) < 1e-3,
                    "\(name) tile at \(frame.time): \(difference) levels from the frame at \(reference.times[expected])")
            count += 1
        }
        #expect(count >= 9)
    }
}
