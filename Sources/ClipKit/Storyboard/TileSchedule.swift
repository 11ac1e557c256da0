// When tiles are taken and how long each one's cue lasts, in whole milliseconds (WebVTT's resolution).
import Foundation

/// Tile *i* is taken at `i * interval` seconds; its cue runs from that time to the next tile's,
/// the last one's to the end of the clip. Boundaries are rounded to milliseconds once each, so
/// consecutive cues share them: every moment of the clip is covered by exactly one cue.
struct TileSchedule: Equatable {
    /// Seconds between tiles.
    let interval: Double
    /// Tiles planned.
    let count: Int
    /// The clip's duration as planned, in milliseconds: where the last cue ends.
    let durationMs: Int

    /// The time of tile `index`, in seconds from the start.
    func time(_ index: Int) -> Double { Double(index) * interval }

    /// Where tile `index`'s cue starts, in milliseconds.
    func startMs(_ index: Int) -> Int { Self.milliseconds(time(index)) }

    static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// One tile for the whole of a clip `duration` seconds long (a still picture).
    static func single(duration: Double) -> TileSchedule {
        TileSchedule(interval: max(duration, 0.001), count: 1, durationMs: max(1, milliseconds(duration)))
    }

    /// The tiles `spacing` asks for over a clip of `duration` seconds: every tile's cue lasts at
    /// least a millisecond, and a clip shorter than one interval gets one tile for all of it.
    /// Throws when `count` tiles cannot each get a millisecond.
    static func plan(_ spacing: TileSpacing, duration: Double, path: String) throws -> TileSchedule {
        let durationMs = milliseconds(duration)
        guard duration > 0, durationMs >= 1 else { return single(duration: duration) }
        let interval: Double
        switch spacing {
        case .automatic:
            interval = max(1, (duration / Double(TileSpacing.automaticMaximum) - 1e-9).rounded(.up))
        case .interval(let seconds):
            interval = seconds
        case .count(let count):
            guard durationMs >= count else {
                throw ClipKitError.noFrames(path: path, reason: "--count \(count) tiles do not fit a \(ClipKitError.seconds(duration)) clip at 1 ms each (at most \(durationMs))")
            }
            interval = duration / Double(count)
        }
        // Tiles whose time rounds to before the end; at least one.
        var count = max(1, Int(min((duration / interval - 1e-9).rounded(.up), 1e12)))
        if case .count(let wanted) = spacing { count = min(count, wanted) }
        while count > 1 && milliseconds(Double(count - 1) * interval) >= durationMs { count -= 1 }
        return TileSchedule(interval: interval, count: count, durationMs: durationMs)
    }
}
