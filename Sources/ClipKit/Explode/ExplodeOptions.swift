// What `explode` writes: which frames, the sampling of videos, replacing earlier output, limits.

/// What `Exploder` writes and how.
public struct ExplodeOptions: Sendable {
    /// Which frames to write (all when nil). Compositing still runs over every earlier frame.
    public var frames: FrameSelection?
    /// Frames per second to sample a video at; nil takes every frame. Ignored for GIFs.
    public var fps: Double?
    /// Replace an existing output directory that an earlier explode wrote (and holds nothing else).
    public var force = false
    /// Pixels, frames and time allowed for one input.
    public var limits = Limits()
    /// The fingerprint `frames.json` records; nil records none.
    public var fingerprint: FingerprintSource?

    /// The options that shape the frames, in a fixed text form: a `Fingerprint`'s options.
    public var fingerprintOptions: String {
        let selection = frames.map { $0.ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",") } ?? "all"
        return "explode frames=\(selection) fps=\(fps.map { "\($0)" } ?? "all")"
    }
    /// Largest canvas or image accepted, in pixels, checked before anything is allocated.
    public var maxPixels: Int {
        get { limits.maxPixels }
        set { limits.maxPixels = newValue }
    }

    /// Throws `ClipKitError.invalidOption` for values that cannot work.
    public func validate() throws {
        if let fps { try TimingBounds.checkFPS(fps, atMost: TimingBounds.maxExplodeFPS) }
    }

    public init(frames: FrameSelection? = nil, fps: Double? = nil, force: Bool = false, maxPixels: Int = 100_000_000) {
        self.frames = frames
        self.fps = fps
        self.force = force
        self.maxPixels = maxPixels
    }
}

/// Frame numbers from `--frames 0,5-9` (counting from 0).
public struct FrameSelection: Sendable, Equatable {
    public let ranges: [ClosedRange<Int>]

    public init(_ ranges: [ClosedRange<Int>]) {
        self.ranges = ranges
    }

    /// Parses `0,5-9`; throws a usage error naming `option` otherwise.
    public init(parsing text: String, option: String = "--frames") throws {
        var ranges: [ClosedRange<Int>] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            let numbers = ends.compactMap { $0.allSatisfy(\.isASCII) ? Int($0) : nil }
            guard (1...2).contains(ends.count), numbers.count == ends.count, numbers.allSatisfy({ $0 >= 0 }),
                  numbers.first! <= numbers.last! else {
                throw ClipKitError.invalidOption(name: option, reason: "'\(text)' is not a list of frames such as 0,5-9 (frames count from 0)")
            }
            ranges.append(numbers.first!...numbers.last!)
        }
        self.ranges = ranges
    }

    public func contains(_ frame: Int) -> Bool { ranges.contains { $0.contains(frame) } }

    /// The highest frame asked for.
    public var last: Int { ranges.map(\.upperBound).max() ?? 0 }
}
