// Picks which decoded frames become output frames: by timestamp at fixed ticks (--fps), or every frame in a range.

/// Decides, from presentation times alone, which decoded frames are shown in the output.
///
/// With an interval, output frame *k* is the source frame on screen at `start + k * interval`:
/// the last frame whose time is at or before the tick (as ffmpeg's `fps` filter picks by
/// timestamp, never by index). Without one, every frame on screen at some time in the range is
/// taken once. A frame is judged when the next one's time is known, so the sampler sees each
/// frame as a *candidate* first.
struct FrameSampler: Sendable {
    /// A place in the output: which output index, and its time relative to `start`.
    struct Emission: Sendable, Equatable {
        var index: Int
        var time: Double
    }

    let start: Double
    let end: Double?
    let interval: Double?
    /// Timestamps this close count as equal (float error in time bases such as 1/30).
    static let epsilon = 1e-6

    private(set) var nextIndex = 0
    /// The source time of the last frame taken without an interval.
    private var lastTaken: Double?

    init(start: Double = 0, end: Double? = nil, interval: Double? = nil) {
        self.start = start
        self.end = end
        self.interval = interval
    }

    /// The time of output tick `index`, relative to `start`.
    func tickTime(_ index: Int) -> Double {
        guard let interval else { return 0 }
        return Double(index) * interval
    }

    /// The next tick to fill, in seconds from the stream start; nil without an interval or past the end.
    var nextTickTime: Double? {
        guard let interval else { return nil }
        let tick = start + Double(nextIndex) * interval
        if let end, tick >= end - Self.epsilon { return nil }
        return tick
    }

    /// True once a frame at `candidateTime` is at or past the end. Not as soon as the last tick
    /// is taken: the frame that follows it says how long the last one lasts, which is the clip's
    /// end when the source goes on past it. (Stopping at the last tick ended `--start 1.0
    /// --duration 0.2` of a 30 fps clip one source frame after the last decoded one: delays of
    /// 10 and 7 cs, not 10 and 10.)
    func isExhausted(candidateTime: Double) -> Bool {
        guard let end else { return false }
        return candidateTime >= end - Self.epsilon
    }

    /// The output places of a candidate frame shown from `time` until `nextTime` (nil: until the
    /// end of the clip at `clipEnd`). Empty when the frame is never on screen at a tick.
    mutating func emissions(candidateTime time: Double, nextTime: Double?, clipEnd: Double? = nil) -> [Emission] {
        let eps = Self.epsilon
        // When the candidate stops being on screen, and where the range ends.
        var until = nextTime ?? clipEnd ?? .infinity
        if let end { until = min(until, end) }
        if let interval {
            var out: [Emission] = []
            while true {
                let tick = start + Double(nextIndex) * interval
                if tick >= until - eps { break }
                if let end, tick >= end - eps { break }
                out.append(Emission(index: nextIndex, time: Double(nextIndex) * interval))
                nextIndex += 1
            }
            return out
        }
        // Every frame: taken when part of its screen time lies in [start, end), and after the
        // last one taken: times that go back (guessed ones, then earlier real ones) would give
        // negative delays; ticks never go back.
        guard until > start + eps else { return [] }
        if let end, time >= end - eps { return [] }
        if let lastTaken, time <= lastTaken + eps { return [] }
        lastTaken = time
        defer { nextIndex += 1 }
        return [Emission(index: nextIndex, time: max(time - start, 0))]
    }

    /// Whether a frame at `time` lasting about `duration` can be on screen at a tick.
    /// False lets the decoder skip it when it is not a reference frame.
    func isNeeded(time: Double, duration: Double) -> Bool {
        guard let interval, duration > 0 else { return true }
        if time <= start + Self.epsilon { return true }
        let k = ((time - start) / interval - Self.epsilon).rounded(.up)
        let tick = start + k * interval
        return tick < time + duration - Self.epsilon
    }
}
