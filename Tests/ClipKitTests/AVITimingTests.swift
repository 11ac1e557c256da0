// AVI with B-frames: packets timed in decode order, some without a timestamp, Xvid's packed bitstream.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct AVITimingTests {
    static let clips = ["avi_bframes.avi", "avi_packed.avi"]

    func frames(_ name: String, fps: Double?) throws -> [(time: Double, sourceTime: Double, image: RGBAImage)] {
        let sequence = try VideoReader(url: Fixture.url("video/\(name)")).frames(options: FrameReadOptions(fps: fps, size: .width(64)))
        defer { sequence.cancel() }
        var out: [(time: Double, sourceTime: Double, image: RGBAImage)] = []
        while let frame = try sequence.next() { out.append((frame.time, frame.sourceTime, frame.image)) }
        return out
    }

    /// Sampling at 10 fps shows at each tick the picture a full decode shows then, and every
    /// tick has its own picture: the 25 fps clip moves in each. (Skipping B-frames by their
    /// packets' decode-order times dropped pictures that were on screen: 17 frames of 100-300 ms.)
    @Test(arguments: clips)
    func ticksShowWhatAFullDecodeShows(_ name: String) throws {
        let all = try frames(name, fps: nil)
        #expect(all.count >= 48)
        let sampled = try frames(name, fps: 10)
        #expect(sampled.count >= 20, "\(name): \(sampled.map(\.time))")
        for (k, frame) in sampled.enumerated() {
            #expect(abs(frame.time - Double(k) / 10) < 1e-6, "\(name): frame \(k) at \(frame.time)")
            let shown = all.last { $0.sourceTime <= frame.time + 1e-6 } ?? all[0]
            #expect(frame.sourceTime == shown.sourceTime && frame.image == shown.image,
                    "\(name) at \(frame.time): source \(frame.sourceTime), a full decode shows \(shown.sourceTime)")
        }
        // A full decode's pictures are 40 ms apart, as the clip's 25 fps.
        let gaps = zip(all.dropFirst(), all).map { $0.sourceTime - $1.sourceTime }
        #expect(gaps.allSatisfy { abs($0 - 0.04) < 0.002 || abs($0 - 0.08) < 0.002 }, "\(name): \(gaps)")
    }

    /// `info`'s measured rate comes from the decode times when only some packets have a
    /// presentation time (it said 16.8 and 8.3 fps).
    @Test(arguments: clips)
    func measuredRateIsTheClipsRate(_ name: String) throws {
        let timing = try StreamTiming.measure(Fixture.url("video/\(name)"))
        let rate = try #require(timing.measuredFrameRate)
        #expect(abs(rate - 25) < 1.5, "\(name): \(rate)")
    }
}
