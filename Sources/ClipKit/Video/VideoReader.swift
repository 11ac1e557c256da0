// Opens a media file and decodes its best video stream (or a GIF's displayed frames) to upright RGBA frames.
import Foundation

/// Decodes the best video stream of a file; GIFs go through ClipKit's own decoder and compositor.
///
/// ```swift
/// let reader = try VideoReader(url: url)
/// let frames = try reader.frames(options: FrameReadOptions(fps: 10, size: .width(480)))
/// while let frame = try frames.next() { ... }
/// ```
public final class VideoReader: Sendable {
    public let url: URL
    public let info: VideoInfo
    /// What was opened for `info`, handed to the first decode so the file is not opened twice.
    private let opened: LockedBox<Opened?>
    private let isGIF: Bool

    private enum Opened {
        case video(Demuxer)
        case gif(GIFAnimation)
    }
    /// Options from `init(_:_:)`, used by `frames`.
    private let defaultOptions: FrameReadOptions?
    /// Whether cover art is read as a picture (`init(url:limits:fullProbe:defaultOptions:coverArt:)`).
    private let coverArt: Bool

    /// Opens `url` and reads its headers. Throws `ClipKitError` for missing, unreadable,
    /// non-media or video-less files, and for frame sizes over `maxPixels`.
    /// `fullProbe: false` skips decoding frames to fill in stream details when the container
    /// headers already have them (faster to the first frame; `info` may show less).
    public convenience init(url: URL, maxPixels: Int = 100_000_000, fullProbe: Bool = true) throws {
        var limits = Limits()
        limits.maxPixels = maxPixels
        try self.init(url: url, limits: limits, fullProbe: fullProbe, defaultOptions: nil)
    }

    /// Opens `url` and starts decoding with `options` when `frames` is read:
    /// `for try await frame in try VideoReader(url, options).frames`.
    public convenience init(_ url: URL, _ options: FrameReadOptions) throws {
        try self.init(url: url, limits: options.limits, fullProbe: true, defaultOptions: options)
    }

    /// Opens `url` under `limits`: its pixel limit, and its deadline (from `limits.started()`),
    /// which also interrupts libavformat's reading and probing.
    public convenience init(url: URL, limits: Limits, fullProbe: Bool = true) throws {
        try self.init(url: url, limits: limits, fullProbe: fullProbe, defaultOptions: nil)
    }

    /// `coverArt`: an audio file's cover art is read as its one picture (`VideoInfo.isCoverArt`),
    /// not refused as no video. `geometryAtOpen`: `info` has the size and pixel aspect ratio the
    /// pictures have, decoding one at open when unprobed (`FirstPicture`); without it, the frames
    /// have them, and `info` may have the headers' instead.
    init(url: URL, limits: Limits, fullProbe: Bool, defaultOptions: FrameReadOptions?, coverArt: Bool = false,
         geometryAtOpen: Bool = false) throws {
        self.url = url
        self.defaultOptions = defaultOptions
        self.coverArt = coverArt
        // GIFs go through ClipKit's own decoder and compositor: frames as browsers show them,
        // damaged files decoded as far as they go, the same as `explode`.
        if GIFFrameSource.isGIF(url) {
            let animation = try GIFAnimation(url: url, limits: limits)
            info = GIFFrameSource.info(of: animation.scan)
            isGIF = true
            opened = LockedBox(.gif(animation))
            return
        }
        let demuxer = try Demuxer(url: url, maxPixels: limits.maxPixels, maxMemory: limits.maxMemory, deadline: limits.deadline,
                                  fullProbe: fullProbe, coverArt: coverArt, geometryAtOpen: geometryAtOpen)
        info = demuxer.info
        isGIF = false
        opened = LockedBox(.video(demuxer))
    }

    /// Starts decoding on a decode thread and returns the frames as they come, through a
    /// bounded queue: decoding pauses while `options.queueCapacity` frames wait unread.
    public func frames(options: FrameReadOptions = FrameReadOptions()) throws -> FrameSequence {
        if isGIF { return FrameSequence(producer: try makeGIFSource(options: options), options: options) }
        return FrameSequence(producer: try makeDecoder(options: options), options: options)
    }

    /// The frames, decoded with the options given to `init(_:_:)` (defaults otherwise).
    public var frames: FrameSequence {
        get throws { try frames(options: defaultOptions ?? FrameReadOptions()) }
    }

    /// The producer of this file's frames, to run as a stage of a pipeline.
    func makeProducer(options: FrameReadOptions) throws -> sending any FrameProducer {
        if isGIF { return try makeGIFSource(options: options) }
        return try makeDecoder(options: options)
    }

    private func makeDecoder(options: FrameReadOptions) throws -> sending FrameDecoder {
        try options.validate()
        let url = self.url
        let demuxer = try opened.withLock { opened -> sending Demuxer in
            if case .video(let demuxer) = opened.take() { return demuxer }
            return try Demuxer(url: url, maxPixels: options.limits.maxPixels, maxMemory: options.limits.maxMemory, deadline: options.limits.deadline,
                               fullProbe: false, coverArt: coverArt)
        }
        return try FrameDecoder(demuxer: demuxer, options: options)
    }

    private func makeGIFSource(options: FrameReadOptions) throws -> sending GIFFrameSource {
        try options.validate()
        let url = self.url
        let animation = try opened.withLock { opened -> sending GIFAnimation in
            if case .gif(let animation) = opened.take() { return animation }
            return try GIFAnimation(url: url, limits: options.limits)
        }
        return try GIFFrameSource(url: url, animation: animation, options: options)
    }
}
