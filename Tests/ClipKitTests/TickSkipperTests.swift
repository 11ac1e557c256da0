// Skipping between sparse ticks gives exactly the frames a full decode gives, on the fixtures made to trip seeking.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct TickSkipperTests {
    struct Sampled: Equatable {
        var index: Int
        var time: Double
        var sourceTime: Double
        var image: RGBAImage
    }

    func frames(_ name: String, interval: Double, skipping: Bool, start: Double = 0) throws -> (frames: [Sampled], duration: Double?) {
        var options = FrameReadOptions(fps: 1 / interval, size: .width(64))
        options.start = start
        options.skipsBetweenTicks = skipping
        let sequence = try VideoReader(url: Fixture.url("video/\(name)")).frames(options: options)
        defer { sequence.cancel() }
        var out: [Sampled] = []
        while let frame = try sequence.next() {
            out.append(Sampled(index: frame.index, time: frame.time, sourceTime: frame.sourceTime, image: frame.image))
        }
        return (out, sequence.duration)
    }

    /// counter.mp4 has keyframes every second: ticks 2 s and more apart jump; the odd intervals
    /// land between keyframes. Open GOPs, an edit-list cut, one keyframe only, MPEG-TS (no index),
    /// variable frame rate and a late stream start must all give the same ticks.
    @Test(arguments: ["counter.mp4", "seek_opengop.mp4", "seek_cut.mp4", "seek_onekey.webm", "seek_ts_bframes.ts",
                      "vfr.mkv", "offset.mp4", "fragmented_open.mp4", "motion.mp4", "cut_negts.mkv", "seek_negts.webm"])
    func sameFramesAsAFullDecode(_ name: String) throws {
        for interval in [1.3, 2.0, 2.9] {
            let full = try frames(name, interval: interval, skipping: false)
            let skipped = try frames(name, interval: interval, skipping: true)
            #expect(!full.frames.isEmpty)
            #expect(skipped.frames == full.frames, "\(name) every \(interval) s: \(skipped.frames.map(\.sourceTime)) vs \(full.frames.map(\.sourceTime))")
        }
        let late = try frames(name, interval: 2, skipping: true, start: 0.5)
        #expect(late.frames == (try frames(name, interval: 2, skipping: false, start: 0.5)).frames, "\(name) from 0.5 s")
    }

    /// The counter's colours name the frames: tick k every 2 s is frame 60 k.
    @Test func ticksAreTheExactFrames() throws {
        let sampled = try frames("counter.mp4", interval: 2, skipping: true).frames
        #expect(sampled.map(\.index) == [0, 1])
        #expect(sampled.map { counterFrame($0.image.pixel(x: 30, y: 20)) } == [0, 60])
    }
}
