// FrameSampler picks frames by timestamp.
import Testing
@testable import ClipKit

@Suite struct FrameSamplerTests {
    @Test func picksFrameOnScreenAtEachTick() {
        var sampler = FrameSampler(interval: 0.1)
        // Frames at 0, 0.25, 0.27, 0.6 s; the clip ends at 0.7 s.
        #expect(sampler.emissions(candidateTime: 0, nextTime: 0.25).map(\.index) == [0, 1, 2])
        #expect(sampler.emissions(candidateTime: 0.25, nextTime: 0.27).isEmpty)
        #expect(sampler.emissions(candidateTime: 0.27, nextTime: 0.6).map(\.index) == [3, 4, 5])
        #expect(sampler.emissions(candidateTime: 0.6, nextTime: nil, clipEnd: 0.7).map(\.index) == [6])
    }

    @Test func exactTickBelongsToTheNewFrame() {
        var sampler = FrameSampler(interval: 0.1)
        // 3/30 s is 0.1 s in a different float: the frame at 0.1 is shown at tick 0.1.
        #expect(sampler.emissions(candidateTime: 0, nextTime: 3.0 / 30).count == 1)
        #expect(sampler.emissions(candidateTime: 3.0 / 30, nextTime: 6.0 / 30).map(\.index) == [1])
    }

    @Test func unneededFramesAreFound() {
        let sampler = FrameSampler(interval: 0.1)
        #expect(sampler.isNeeded(time: 0, duration: 1.0 / 30))
        #expect(!sampler.isNeeded(time: 1.0 / 30, duration: 1.0 / 30))
        #expect(!sampler.isNeeded(time: 2.0 / 30, duration: 1.0 / 30))
        #expect(sampler.isNeeded(time: 3.0 / 30, duration: 1.0 / 30))
    }

    @Test func everyFrameModeClipsToRange() {
        var sampler = FrameSampler(start: 1.0, end: 2.0)
        #expect(sampler.emissions(candidateTime: 0.5, nextTime: 0.9).isEmpty)
        #expect(sampler.emissions(candidateTime: 0.9, nextTime: 1.2) == [.init(index: 0, time: 0)])
        let second = sampler.emissions(candidateTime: 1.2, nextTime: 2.5)
        #expect(second.count == 1 && second[0].index == 1 && abs(second[0].time - 0.2) < 1e-9)
        #expect(sampler.emissions(candidateTime: 2.5, nextTime: 3).isEmpty)
    }

    /// Without an interval no frame is taken at or before the last one taken: times that go
    /// back (guessed ones, then earlier real ones) would give negative delays.
    @Test func everyFrameModeNeverGoesBack() {
        var sampler = FrameSampler()
        #expect(sampler.emissions(candidateTime: 1.24, nextTime: 1.28) == [.init(index: 0, time: 1.24)])
        #expect(sampler.emissions(candidateTime: 0, nextTime: 0.04).isEmpty)
        #expect(sampler.emissions(candidateTime: 1.24, nextTime: 1.28).isEmpty)
        #expect(sampler.emissions(candidateTime: 1.28, nextTime: 1.32) == [.init(index: 1, time: 1.28)])
    }
}
