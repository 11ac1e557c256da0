// What a reader decodes and how (range, sampling, size, limits), and the frames it gives.
import Foundation

/// What to decode and how: range, sampling, size, limits.
public struct FrameReadOptions: Sendable {
    /// Seconds from the stream start where output begins.
    public var start: Double = 0
    /// Seconds from the stream start where output ends (exclusive); nil for the whole clip.
    public var end: Double?
    /// Output frames per second, chosen by timestamp; nil takes every frame.
    public var fps: Double?
    /// Playback speed: frames arrive in output time, the source time divided by it (2 plays twice
    /// as fast); with `fps`, ticks fall `speed / fps` source seconds apart.
    public var speed: Double = 1
    /// Stop after this many output frames.
    public var maxFrames: Int?
    /// Decode only keyframes.
    public var keyframesOnly = false
    /// With `fps`, seek over stretches no tick can show (see `TickSkipper`): for ticks seconds
    /// apart in files with an index. Same frames, less decoding.
    var skipsBetweenTicks = false
    /// Output size of the upright picture.
    public var size: FrameSize = .original
    /// How many decoded frames may wait for the consumer.
    public var queueCapacity = 3
    /// Decoder threads: one per core.
    public var threadCount = ProcessInfo.processInfo.activeProcessorCount
    /// Pixels, source duration and time allowed (`limits.started()` starts the clock).
    public var limits = Limits()

    public init(start: Double = 0, end: Double? = nil, fps: Double? = nil, maxFrames: Int? = nil,
                keyframesOnly: Bool = false, size: FrameSize = .original) {
        self.start = start
        self.end = end
        self.fps = fps
        self.maxFrames = maxFrames
        self.keyframesOnly = keyframesOnly
        self.size = size
    }

    /// Ticks per source second: `fps / speed`.
    var sourceRate: Double? { fps.map { $0 / speed } }

    /// Source seconds between ticks.
    var tickInterval: Double? { sourceRate.map { 1 / $0 } }

    /// How many output frames a clip of `duration` seconds at `frameRate` should give (for
    /// progress); nil when unknown.
    func expectedCount(duration: Double?, frameRate: Double?, sourceFrames: Int? = nil) -> Int? {
        var expected: Int?
        if let duration {
            let span = min(end ?? duration, duration) - start
            if let fps = sourceRate { expected = max(1, Int(min((span * fps - 1e-6).rounded(.up), 1e9))) }
            else if let frameRate { expected = max(1, Int(min((span * frameRate).rounded(), 1e9))) }
            else { expected = sourceFrames }
        }
        if let maxFrames { expected = min(expected ?? maxFrames, maxFrames) }
        return expected
    }

    /// The source span a frame at `time` brings the conversion to, checked against
    /// `limits.maxDuration`: absurd timestamp gaps end in an error, not hours of repeated ticks.
    func checkTimestamp(_ time: Double, path: String) throws {
        try limits.checkSourceSpan(min(time, end ?? .infinity) - start, path: path)
    }

    /// Throws `invalidOption` for values that cannot work.
    func validate() throws {
        if let fps { try TimingBounds.checkFPS(fps, atMost: .infinity) }
        try TimingBounds.checkSpeed(speed)
        if !(start >= 0 && start.isFinite) {
            throw ClipKitError.invalidOption(name: "--start", reason: "must be zero or more seconds")
        }
        if let end, !(end > start && end.isFinite) {
            throw ClipKitError.invalidOption(name: "--end", reason: "must be after the start")
        }
        if let maxFrames, maxFrames < 1 {
            throw ClipKitError.invalidOption(name: "--max-frames", reason: "must be at least 1")
        }
    }
}

/// One output frame of a `VideoReader`.
public struct VideoFrame: Sendable {
    /// The upright picture.
    public var image: RGBAImage
    /// 0-based position in the output (the tick number when sampling by fps).
    public var index: Int
    /// Output time in seconds, relative to the requested start.
    public var time: Double
    /// Presentation time of the decoded source frame, in seconds from the stream start.
    public var sourceTime: Double
}
