// Grabs one upright, scaled frame of a video: the first, one at a chosen time, or the first non-black one.
import Foundation

/// Where in the clip the thumbnail is taken.
public enum ThumbnailPosition: Sendable, Equatable {
    /// The first frame.
    case first
    /// The frame on screen at this many seconds from the start.
    case seconds(Double)
    /// The frame on screen at this fraction (0...1) of the duration.
    case fraction(Double)
}

/// Where a thumbnail is taken, its size, black-frame skipping and the limits of one input.
public struct ThumbnailOptions: Sendable {
    public var position: ThumbnailPosition = .first
    public var size: FrameSize = .fit(width: 320, height: 320)
    /// Take the first frame that is not almost uniformly black or white, looking this far
    /// (seconds) from the position; nil takes the frame at the position as it is.
    public var skipBlankWithin: Double?
    /// Pixels and time allowed for one input.
    public var limits = Limits()
    /// The fingerprint the PNG records (a `tEXt` chunk); nil records none.
    public var fingerprint: FingerprintSource?

    /// The options that shape the thumbnail, in a fixed text form: a `Fingerprint`'s options.
    /// Limits are not among them: they decide whether a thumbnail is made, not how it looks.
    public var fingerprintOptions: String {
        let at: String
        switch position {
        case .first: at = "first"
        case .seconds(let seconds): at = "s:\(seconds)"
        case .fraction(let fraction): at = "f:\(fraction)"
        }
        return "thumb at=\(at) size=\(size.key) skip-blank=\(skipBlankWithin.map { "\($0)" } ?? "off")"
    }

    public init(position: ThumbnailPosition = .first, size: FrameSize = .fit(width: 320, height: 320),
                skipBlankWithin: Double? = nil) {
        self.position = position
        self.size = size
        self.skipBlankWithin = skipBlankWithin
    }
}

/// What `Thumbnailer.writeThumbnail(of:to:)` wrote.
public struct ThumbnailResult: Sendable {
    public var url: URL
    public var width: Int
    public var height: Int
    public var bytes: Int
    /// Damage in the source that was decoded around (GIF input).
    public var warnings: [String] = []
}

/// Takes one upright, scaled frame of a video, GIF or still image: the first, one at a time or
/// percentage (frame-accurate), or the first that is not a black or white fade.
public struct Thumbnailer: Sendable {
    public var options: ThumbnailOptions

    public init(options: ThumbnailOptions = ThumbnailOptions()) {
        self.options = options
    }

    /// Writes the thumbnail of `url` to `destination` as a PNG (RGBA when it has transparent
    /// pixels, RGB otherwise): whole or not at all, and
    /// within `options.limits.maxOutputBytes`.
    public func writeThumbnail(of url: URL, to destination: URL) throws -> ThumbnailResult {
        let stamp = FingerprintStage(options.fingerprint, input: url, deadline: options.limits.started().deadline)
        defer { stamp.stop() }
        let (image, warnings) = try take(url)
        // Transparent pixels (a GIF's, a video's alpha) stay transparent; opaque pictures are RGB.
        let bytes = try PNGWriter.encode(image, channels: image.isOpaque ? .rgb : .rgba, filter: .sub, fingerprint: try stamp.value())
        try AtomicFile.write(bytes, to: destination, budget: ByteBudget(limit: options.limits.maxOutputBytes))
        return ThumbnailResult(url: destination, width: image.width, height: image.height, bytes: bytes.count, warnings: warnings)
    }

    /// The thumbnail of `url`, upright and scaled.
    public func thumbnail(of url: URL) throws -> RGBAImage {
        try take(url).image
    }

    /// The thumbnail and the damage its source was decoded around.
    private func take(_ url: URL) throws -> (image: RGBAImage, warnings: [String]) {
        let limits = options.limits.started()
        let reader = try VideoReader(url: url, limits: limits, fullProbe: false)
        var read = FrameReadOptions(size: options.size)
        read.limits = limits
        read.start = try startTime(in: reader.info, path: url.path, limits: limits)
        // The decoder's converted and turned picture, one queued, the caller's (and a GIF's canvases).
        let output = options.size.resolve(width: reader.info.width, height: reader.info.height)
        let gifCanvases = reader.info.container == "gif" ? 2 * reader.info.width * reader.info.height * 4 : 0
        try limits.checkMemory(pictures: 4, of: output.width * output.height * 4 + gifCanvases / 4, what: "pictures", path: url.path)
        read.queueCapacity = 1
        guard let window = options.skipBlankWithin else {
            read.maxFrames = 1
            let frames = try reader.frames(options: read)
            let image = try firstFrame(frames, path: url.path).image
            return (image, frames.warnings)
        }
        // Look at a few frames a second through the window; decoding skips the rest.
        read.end = read.start + max(window, 0.001)
        read.fps = 4
        let frames = try reader.frames(options: read)
        defer { frames.cancel() }
        var first: VideoFrame?
        while let frame = try frames.next() {
            if first == nil { first = frame }
            if !BlackFrameDetector.isBlank(frame.image) { return (frame.image, frames.warnings) }
        }
        guard let first else { throw ClipKitError.noFrames(path: url.path, reason: "nothing decoded") }
        return (first.image, frames.warnings)
    }

    private func firstFrame(_ frames: FrameSequence, path: String) throws -> VideoFrame {
        defer { frames.cancel() }
        guard let frame = try frames.next() else {
            throw ClipKitError.noFrames(path: path, reason: "nothing decoded")
        }
        // The end message follows the one frame asked for; it carries the damage report.
        _ = try? frames.next()
        return frame
    }

    private func startTime(in info: VideoInfo, path: String, limits: Limits) throws -> Double {
        switch options.position {
        case .first:
            return 0
        case .seconds(let seconds):
            guard seconds >= 0, seconds.isFinite else {
                throw ClipKitError.invalidOption(name: "--at", reason: "must be zero or more seconds")
            }
            if let duration = info.duration, seconds >= duration {
                throw ClipKitError.startPastEnd(path: path, start: seconds, duration: duration)
            }
            return seconds
        case .fraction(let fraction):
            guard (0...1).contains(fraction) else {
                throw ClipKitError.invalidOption(name: "--at", reason: "a percentage must be between 0% and 100%")
            }
            // No length in the header (WebM without Duration, fragmented MP4): the timestamps tell it.
            guard let duration = try info.duration ?? StreamTiming.measure(URL(fileURLWithPath: path), limits: limits).duration else {
                throw ClipKitError.invalidOption(name: "--at", reason: "\(path) has no known duration; give a time instead of a percentage")
            }
            // 100% is the last frame, not past the end.
            let step = 1 / (info.frameRate ?? 25)
            return min(fraction * duration, max(duration - step, 0))
        }
    }
}
