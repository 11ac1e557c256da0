// Every bound on a timing value (frame rates, delays, speed), stated once and checked at the door.

/// The bounds of the values that set an output's timing. Options check them in their
/// `validate()` (which the CLI runs before any input is touched, as a usage error); nothing
/// downstream checks them again.
public enum TimingBounds {
    /// Most frames per second of a GIF (`gif --fps`): delays are whole centiseconds, and browsers
    /// play delays under 2 cs as 10 cs.
    public static let maxGIFFPS = 50.0
    /// Most frames per second `explode --fps` samples a video at (each tick is a PNG).
    public static let maxExplodeFPS = 1000.0
    /// `--speed`: from a hundredth to a hundred times as fast.
    public static let speed: ClosedRange<Double> = 0.01...100
    /// A delay given for every frame (`gif --delay`), in centiseconds: at least 2 (browsers play
    /// shorter ones as 10), at most what one GIF image carries.
    public static let givenDelay: ClosedRange<Int> = 2...imageDelay.upperBound
    /// A delay one GIF image carries: a 16-bit field of centiseconds.
    public static let imageDelay: ClosedRange<Int> = 0...65535
    /// A frame's delay in a `frames.json` or given to `GIFConverter.convert(images:delays:)`: up
    /// to 100 hours; longer than an image's own field, it goes on in images that draw nothing.
    public static let frameDelay: ClosedRange<Int> = 0...36_000_000

    /// Throws `invalidOption` (`--fps`) unless `fps` is more than 0 and at most `limit`.
    static func checkFPS(_ fps: Double, atMost limit: Double) throws {
        guard fps > 0, fps.isFinite, fps <= limit else {
            let bound = limit.isFinite ? " and at most \(Int(limit))" : ""
            let why = limit == maxGIFFPS ? ": GIF delays are whole centiseconds and browsers play delays under 2 cs as 10 cs" : ""
            throw ClipKitError.invalidOption(name: "--fps", reason: "must be more than 0\(bound), got \(fps)\(why)")
        }
    }

    /// Throws `invalidOption` (`--speed`) outside `speed`.
    static func checkSpeed(_ speed: Double) throws {
        guard speed.isFinite, Self.speed.contains(speed) else {
            throw ClipKitError.invalidOption(name: "--speed", reason: "must be between 0.01 and 100, got \(speed)")
        }
    }

    /// Throws `invalidOption` (`name`) when a delay lies outside `range`.
    public static func checkDelays(_ delays: [Int], in range: ClosedRange<Int>, name: String) throws {
        if let bad = delays.first(where: { !range.contains($0) }) {
            var reason = "delays are \(range.lowerBound) to \(range.upperBound) centiseconds, got \(bad)"
            if range == givenDelay { reason += " (browsers play shorter delays as 10)" }
            throw ClipKitError.invalidOption(name: name, reason: reason)
        }
    }
}
