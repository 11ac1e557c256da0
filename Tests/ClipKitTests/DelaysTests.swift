// Delays: frame times to GIF centiseconds by cumulative rounding, so the GIF lasts exactly as long as the clip.
import Testing
@testable import ClipKit

@Suite struct DelaysTests {
    /// Frame times at `fps` from `start` up to (not including) `duration`.
    func times(fps: Double, start: Double = 0, duration: Double) -> [Double] {
        var out: [Double] = []
        var i = 0
        while start + Double(i) / fps < duration - 1e-9 {
            out.append(start + Double(i) / fps)
            i += 1
        }
        return out
    }

    @Test func thirtyFPSAlternatesThreeFourThree() {
        // 3.33 cs a frame: rounding each delay alone gives 3s and a GIF 10% short; cumulative
        // rounding gives 3, 4, 3 over and over.
        let delays = Delays.centiseconds(times: times(fps: 30, duration: 4), duration: 4)
        #expect(delays.count == 120)
        for k in stride(from: 0, to: 120, by: 3) {
            #expect(Array(delays[k..<(k + 3)]) == [3, 4, 3], "frames \(k)...\(k + 2)")
        }
        #expect(delays.reduce(0, +) == 400)
        // 15 fps is 6.67 cs: 7, 6, 7.
        let fifteen = Delays.centiseconds(times: times(fps: 15, duration: 1), duration: 1)
        #expect(Array(fifteen.prefix(3)) == [7, 6, 7] && fifteen.reduce(0, +) == 100)
        // 0.1 * k is not exactly k tenths in binary: every delay is still 10.
        #expect(Delays.centiseconds(times: (0..<100).map { Double($0) * 0.1 }, duration: 10).allSatisfy { $0 == 10 })
    }

    @Test(arguments: [5, 7, 10, 12, 15, 23.976, 24, 25, 29.97, 30, 50, 60])
    func totalsMatchTheDurationWithoutDrift(fps: Double) {
        for (start, duration) in [(0.0, 4.0), (0.0, 3.333), (0.0, 2.718), (1.5, 3.07), (0.0, 61.0)] {
            let t = times(fps: fps, start: start, duration: duration)
            let delays = Delays.centiseconds(times: t, duration: duration)
            #expect(delays.count == t.count)
            // The total is the clip's length in centiseconds, however many frames round down.
            #expect(delays.reduce(0, +) == Int((100 * duration).rounded()) - Int((100 * start).rounded()),
                    "\(fps) fps, \(start)...\(duration)")
            // No drift: after every frame the running total is the rounded time of the next one,
            // which makes every delay the frame interval rounded down or up.
            var total = 0, drift: [String] = []
            for k in 0..<(t.count - 1) {
                total += delays[k]
                let expected = Int((100 * t[k + 1]).rounded()) - Int((100 * start).rounded())
                if total != expected { drift.append("frame \(k): running total \(total), expected \(expected)") }
                if abs(Double(delays[k]) - 100 / fps) >= 1 { drift.append("frame \(k): delay \(delays[k])") }
            }
            #expect(drift.isEmpty, "\(fps) fps, \(start)...\(duration): \(drift.prefix(3))")
        }
    }

    @Test func lastFrameLastsUntilTheClipEnds() {
        #expect(Delays.centiseconds(times: [0, 0.5], duration: 1.234) == [50, 73])
        #expect(Delays.centiseconds(times: [0], duration: 2.5) == [250])
        #expect(Delays.centiseconds(times: [0.2, 0.3], duration: 1) == [10, 70])
        // A clip end before the last frame (a lying header) gives that frame 0, never a negative delay.
        #expect(Delays.centiseconds(times: [0, 0.5], duration: 0.4) == [50, 0])
        #expect(Delays.centiseconds(times: [], duration: 3).isEmpty)
    }

    @Test func halvesRoundUpTheSameWayEveryTime() {
        #expect(Delays.centiseconds(0.005) == 1)
        #expect(Delays.centiseconds(0.015) == 2)
        #expect(Delays.centiseconds(0.125) == 13)
        #expect(Delays.centiseconds(0.1 * 3) == 30)
        #expect(Delays.centiseconds(0.3) == 30)
        #expect(Delays.centiseconds(0.004) == 0)
        #expect(Delays.centiseconds(7.0 / 30) == 23)
        // Halves whose product lands a hair below .5 in binary (57.49999999999999) still round up.
        #expect(Delays.centiseconds(0.145) == 15)
        #expect(Delays.centiseconds(0.575) == 58)
        #expect(Delays.centiseconds(1.005) == 101)
        // So at 40 fps (2.5 cs a frame) every frame time that is a half rounds up: 3, 2, 3, 2 ...
        let forty = Delays.centiseconds(times: times(fps: 40, duration: 5), duration: 5)
        #expect(forty.count == 200 && forty.reduce(0, +) == 500)
        #expect(forty.indices.allSatisfy { forty[$0] == ($0 % 2 == 0 ? 3 : 2) }, "\(forty)")
    }
}
