// Turns frame times in seconds into GIF delays in centiseconds by cumulative rounding, so no drift builds up.

/// GIF delays from frame times: cumulative rounding to centiseconds, so the total equals the
/// clip's length and no error builds up.
public enum Delays {
    /// The delays of frames shown at `times` (seconds, ascending, from 0) in a clip lasting
    /// `duration` seconds: `delay_i = round(100 * t_(i+1)) - round(100 * t_i)`, with the last
    /// frame lasting until `duration`. The total equals `round(100 * duration) - round(100 * t_0)`.
    public static func centiseconds(times: [Double], duration: Double) -> [Int] {
        guard !times.isEmpty else { return [] }
        var delays: [Int] = []
        delays.reserveCapacity(times.count)
        for i in times.indices {
            let next = i + 1 < times.count ? times[i + 1] : max(duration, times[i])
            delays.append(centiseconds(next) - centiseconds(times[i]))
        }
        return delays
    }

    /// `seconds` in whole centiseconds, rounding halves up (the same way for every frame).
    @inline(__always)
    public static func centiseconds(_ seconds: Double) -> Int {
        // The tiny bias keeps values like 0.1 * 3 (0.30000000000000004 or 0.29999999999999999) stable.
        // Clamped: a non-finite or absurd time must not trap the conversion.
        let value = (seconds * 100 + 0.5 + 1e-7).rounded(.down)
        return value.isNaN ? 0 : Int(max(-9e15, min(value, 9e15)))
    }
}
