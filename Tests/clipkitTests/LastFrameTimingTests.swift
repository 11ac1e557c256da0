// The last frame of a stream without frame durations lasts the interval before it, in gif, explode and info.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct LastFrameTimingTests {
    /// 5 s at 30/10/24 fps whose last frame (at 4.958 s) has no duration of its own, or only the
    /// 8 ms time base tick: it lasts the 41.7 ms before it, as ffmpeg's duration guess and
    /// players have it, so the clip is 5.0 s long. It was 4.966 s (a 4.97 s GIF, last delay 7 cs
    /// where 10 belong) and `info` said 4.958 s.
    @Test(arguments: ["vfr_tick.mkv", "vfr_nodur.mkv"])
    func lastFrameLastsTheIntervalBeforeIt(_ name: String) throws {
        let url = Fixture.url("video/\(name)")
        let scratch = Fixture.scratchDirectory()
        #expect(abs((try StreamTiming.measure(url).duration ?? 0) - 5.0) < 0.002)

        let info = try CLI.run(["info", "--json", url.path], in: scratch)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let milliseconds = try #require(json["duration_ms"] as? Int)
        #expect(abs(milliseconds - 5000) <= 2, "info: \(milliseconds) ms")

        #expect(try CLI.run(["explode", url.path, "-o", "frames/"], in: scratch).status == 0)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.appendingPathComponent("frames/frames.json"))) as? [String: Any]
        let frames = try #require(manifest?["frames"] as? [[String: Any]])
        let total = frames.compactMap { $0["delay_ms"] as? Int }.reduce(0, +)
        #expect(abs(total - 5000) <= 2 && frames.count == 104, "explode: \(frames.count) frames, \(total) ms")
        #expect((frames.last?["delay_ms"] as? Int ?? 0) >= 30, "the last frame lasts about 42 ms, not 8")

        #expect(try CLI.run(["gif", url.path, "-o", "out.gif"], in: scratch).status == 0)
        let delays = try FFmpegReference.gifDelays(scratch.appendingPathComponent("out.gif"))
        let centiseconds = delays.reduce(0, +)
        #expect(centiseconds >= 500 && centiseconds <= 505, "gif: \(centiseconds) cs, last \(delays.last ?? 0)")
    }

    /// A 600 Hz QuickTime track (iPhone and QuickTime screen recordings) whose last frame,
    /// written at stop, comes 2 s after the one before: libavformat gives every packet one tick,
    /// so the frame has no duration of its own, and the gap before it made the clip 6 s long
    /// (info, the GIF). The container states 4.04 s, as ffprobe gives it.
    @Test func aLastFrameWithoutDurationEndsWhereTheContainerSays() throws {
        let url = Fixture.url("video/qt600_idle_end.mov")
        let scratch = Fixture.scratchDirectory()
        #expect(abs((try StreamTiming.measure(url).duration ?? 0) - 4.04) < 0.002)
        let info = try Decoded.jsonLines(try CLI.run(["info", "--json", url.path], in: scratch).stdout)
        #expect(info.first?["duration_ms"] as? Int == 4040, "\(info)")
        #expect(try CLI.run(["gif", url.path, "-o", "out.gif"], in: scratch).status == 0)
        let delays = try FFmpegReference.gifDelays(scratch.appendingPathComponent("out.gif"))
        #expect(delays.reduce(0, +) == 404, "gif: \(delays)")
    }

    /// H.264 with B-frames in NUT, whose header length stops at the last timestamp: sampled at
    /// 10 fps the B-frames are not decoded, and the last frame lasts its own 40 ms, not the gap
    /// of two frames before it among those decoded. (A 4.04 s GIF whose 41st frame lasted 4 cs.)
    @Test func theLastFrameLastsItsOwnDurationWhenFramesBeforeItWereSkipped() throws {
        let url = Fixture.url("video/nut_bframes.nut")
        let scratch = Fixture.scratchDirectory()
        #expect(try CLI.run(["gif", url.path, "-o", "out.gif", "-q"], in: scratch).status == 0)
        let decoded = try Decoded.gif(scratch.appendingPathComponent("out.gif"), keep: 1)
        #expect(decoded.delays == Array(repeating: 10, count: 40), "\(decoded.delays)")
    }

    /// A stretch cut out of a longer source ends where asked: the frame on screen at the last
    /// tick lasts until the end, as the source goes on past it. The decode used to stop at the
    /// last tick and end one source frame after it: `--start 1.0 --duration 0.2` of the 30 fps
    /// counter gave delays of 10 and 7 cs; a GIF of 30 ms frames, `--duration 0.2`, 10 and 5.
    @Test func aCutEndsWhereAskedNotAfterTheLastTicksFrame() throws {
        let scratch = Fixture.scratchDirectory()
        let counter = Fixture.url("video/counter.mp4").path
        for (arguments, expected) in [(["--start", "1.0", "--duration", "0.2"], [10, 10]), (["--start", "1.05", "--duration", "0.3"], [10, 10, 10]),
                                      (["--duration", "0.25", "--fps", "4"], [25]), (["--start", "3.9", "--duration", "0.5"], [10])] {
            #expect(try CLI.run(["gif", counter, "-o", "cut.gif", "--force", "-q"] + arguments, in: scratch).status == 0)
            #expect(try Decoded.gif(scratch.appendingPathComponent("cut.gif")).delays == expected, "\(arguments)")
        }
        // A GIF source of 30 ms frames (made here: 30 frames of 32x32).
        let source = scratch.appendingPathComponent("fast.gif")
        let encoder = try GIFEncoder(url: source, width: 32, height: 32, globalPalette: nil, loopCount: 0)
        for i in 0..<30 {
            try encoder.add(GIFFrame(width: 32, height: 32, delay: 3, localPalette: [UInt8(i * 8), 0, 0, 0, 0, 0],
                                     indices: [UInt8](repeating: 0, count: 32 * 32)))
        }
        try encoder.finish()
        for (arguments, expected) in [(["--duration", "0.2"], [10, 10]), (["--start", "0.1", "--duration", "0.2"], [10, 10]),
                                      (["--duration", "0.2", "--fps", "10"], [10, 10])] {
            #expect(try CLI.run(["gif", source.path, "-o", "cut.gif", "--force", "-q"] + arguments, in: scratch).status == 0)
            let delays = try Decoded.gif(scratch.appendingPathComponent("cut.gif")).delays
            #expect(delays == expected, "\(arguments): \(delays)")
        }
        // Whole, it keeps its own 3 cs frames (a cut of it is sampled at 10 fps, above), every
        // one though each is only 8 levels from the last: a GIF is drawn exactly (threshold 0)
        // unless a threshold is asked for. With the video default, pairs merge.
        #expect(try CLI.run(["gif", source.path, "-o", "whole.gif", "-q"], in: scratch).status == 0)
        let whole = try Decoded.gif(scratch.appendingPathComponent("whole.gif")).delays
        #expect(whole == Array(repeating: 3, count: 30), "\(whole)")
        #expect(try CLI.run(["gif", source.path, "-o", "merged.gif", "-q", "--threshold", "250"], in: scratch).status == 0)
        let merged = try Decoded.gif(scratch.appendingPathComponent("merged.gif")).delays
        #expect(merged.reduce(0, +) == 90 && merged.count < 30, "\(merged)")
    }
}
