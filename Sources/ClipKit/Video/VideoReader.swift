// Opens a media file with libavformat and decodes its best video stream to upright RGBA frames.
import CFFmpeg
import Foundation

/// What to decode and how: range, sampling, size.
public struct FrameReadOptions: Sendable {
    /// Seconds from the stream start where output begins.
    public var start: Double = 0
    /// Seconds from the stream start where output ends (exclusive); nil for the whole clip.
    public var end: Double?
    /// Output frames per second, chosen by timestamp; nil takes every frame.
    public var fps: Double?
    /// Stop after this many output frames.
    public var maxFrames: Int?
    /// Decode only keyframes.
    public var keyframesOnly = false
    /// Output size of the upright picture.
    public var size: FrameSize = .original
    /// How many decoded frames may wait for the consumer.
    public var queueCapacity = 3
    /// Decoder threads: one per core.
    public var threadCount = ProcessInfo.processInfo.activeProcessorCount
    /// Largest decoded frame accepted, in pixels.
    public var maxPixels = 100_000_000
    /// Decoding stops with an error once this passes.
    public var deadline = Deadline.none
    /// Longest stretch of output timeline accepted, in seconds (`--max-duration`); a frame
    /// timestamped beyond it is an error rather than hours of repeated ticks. Nil: no limit.
    public var maxDuration: Double?

    /// How many output frames a clip of `duration` seconds at `frameRate` should give (for
    /// progress); nil when unknown.
    func expectedCount(duration: Double?, frameRate: Double?, sourceFrames: Int? = nil) -> Int? {
        var expected: Int?
        if let duration {
            let span = min(end ?? duration, duration) - start
            if let fps { expected = max(1, Int((span * fps - 1e-6).rounded(.up))) }
            else if let frameRate { expected = max(1, Int((span * frameRate).rounded())) }
            else { expected = sourceFrames }
        }
        if let maxFrames { expected = min(expected ?? maxFrames, maxFrames) }
        return expected
    }

    /// Throws when a frame at `time` lies more than `maxDuration` of output past the start:
    /// absurd timestamp gaps end in an error, not in hours of repeated ticks.
    func checkTimestamp(_ time: Double, path: String) throws {
        if let maxDuration, min(time, end ?? .infinity) - start > maxDuration {
            throw ClipKitError.limitExceeded(path: path, what: String(format: "a frame at %.1fs", time),
                                             limit: String(format: "%gs of clip", maxDuration), option: "--max-duration")
        }
    }

    public init(start: Double = 0, end: Double? = nil, fps: Double? = nil, maxFrames: Int? = nil,
                keyframesOnly: Bool = false, size: FrameSize = .original) {
        self.start = start
        self.end = end
        self.fps = fps
        self.maxFrames = maxFrames
        self.keyframesOnly = keyframesOnly
        self.size = size
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

/// Decodes the best video stream of a file.
///
/// ```swift
/// let reader = try VideoReader(url: url)
/// let frames = try reader.frames(options: FrameReadOptions(fps: 10, size: .width(480)))
/// while let frame = try frames.next() { ... }
/// ```
public final class VideoReader: @unchecked Sendable {
    public let url: URL
    public let info: VideoInfo
    private var demuxer: Demuxer?
    private var isGIF = false
    private let lock = NSLock()
    /// Options from `init(_:_:)`, used by `frames`.
    var pendingOptions: FrameReadOptions?

    /// Opens `url` and reads its headers. Throws `ClipKitError` for missing, unreadable,
    /// non-media or video-less files.
    /// `fullProbe: false` skips decoding frames to fill in stream details when the container
    /// headers already have them (faster to the first frame; `info` may show less).
    public init(url: URL, maxPixels: Int = 100_000_000, fullProbe: Bool = true) throws {
        self.url = url
        // GIFs go through ClipKit's own decoder and compositor: frames as browsers show them,
        // damaged files decoded as far as they go, the same as `explode`.
        if Exploder.isGIF(url) {
            info = try GIFFrameSource.info(of: url, maxPixels: maxPixels).0
            isGIF = true
            return
        }
        let demuxer = try Demuxer(url: url, maxPixels: maxPixels, fullProbe: fullProbe)
        let info = demuxer.info
        if info.codedWidth * info.codedHeight > maxPixels {
            throw ClipKitError.limitExceeded(path: url.path, what: "frame size \(info.codedWidth)x\(info.codedHeight)",
                                             limit: "\(maxPixels) pixels", option: "--max-pixels")
        }
        self.info = info
        self.demuxer = demuxer
    }

    /// Starts decoding on a background thread and returns the frames as they come, through a
    /// bounded queue: decoding pauses while `options.queueCapacity` frames wait unread.
    public func frames(options: FrameReadOptions = FrameReadOptions()) throws -> FrameSequence {
        try Self.validate(options)
        if isGIF {
            let source = try GIFFrameSource(url: url, options: options)
            let sequence = FrameSequence(capacity: options.queueCapacity, expectedCount: source.expectedCount)
            startThread { source.run(into: sequence) }
            return sequence
        }
        lock.lock()
        let existing = demuxer
        demuxer = nil
        lock.unlock()
        let source = try existing ?? Demuxer(url: url, maxPixels: options.maxPixels, fullProbe: false)
        let decoder = try FrameDecoder(demuxer: source, options: options)
        let sequence = FrameSequence(capacity: options.queueCapacity, expectedCount: decoder.expectedCount)
        startThread { decoder.run(into: sequence) }
        return sequence
    }

    private func startThread(_ body: @escaping () -> Void) {
        let thread = Thread(block: body)
        thread.name = "clipkit.decode"
        thread.stackSize = 8 << 20
        thread.start()
    }

    static func validate(_ options: FrameReadOptions) throws {
        if let fps = options.fps, !(fps > 0 && fps.isFinite) {
            throw ClipKitError.invalidOption(name: "--fps", reason: "must be a positive number, got \(fps)")
        }
        if !(options.start >= 0 && options.start.isFinite) {
            throw ClipKitError.invalidOption(name: "--start", reason: "must be zero or more seconds")
        }
        if let end = options.end, !(end > options.start) {
            throw ClipKitError.invalidOption(name: "--end", reason: "must be after the start")
        }
        if let maxFrames = options.maxFrames, maxFrames < 1 {
            throw ClipKitError.invalidOption(name: "--max-frames", reason: "must be at least 1")
        }
    }
}

/// The frames of one decode, in output order. Pull them with `next()`; `cancel()` stops the
/// decoder. After the last frame, `duration` holds the length of the output timeline.
public final class FrameSequence: @unchecked Sendable {
    let queue: BoundedQueue<VideoFrame>
    /// A guess at how many frames will come (for progress), nil when unknown.
    public let expectedCount: Int?
    private let lock = NSLock()
    private var _duration: Double?

    init(capacity: Int, expectedCount: Int?) {
        queue = BoundedQueue(capacity: Swift.max(1, capacity))
        self.expectedCount = expectedCount
    }

    /// The next frame, nil at the end; throws the decoder's error.
    public func next() throws -> VideoFrame? { try queue.pop() }

    public func cancel() { queue.cancel() }

    /// Seconds from the requested start to the end of the last frame shown. Set when the
    /// decoder finishes, before the sequence ends.
    public var duration: Double? {
        lock.lock(); defer { lock.unlock() }
        return _duration
    }

    func setDuration(_ value: Double) {
        lock.lock(); _duration = value; lock.unlock()
    }

    /// Frames queued so far (touched only by the producing thread).
    private(set) var pushedCount = 0

    /// Runs a producer on the current thread and ends the sequence when it returns, with its error.
    func produce(_ body: () throws -> Void) {
        do {
            try body()
            queue.finish()
        } catch {
            queue.finish(throwing: error)
        }
    }

    /// Queues `image` once for each output place it fills. False when output must stop: the
    /// consumer cancelled or `maxFrames` frames have been queued.
    func push(_ image: RGBAImage, at places: [FrameSampler.Emission], sourceTime: Double, maxFrames: Int?) -> Bool {
        for place in places {
            if let maxFrames, pushedCount >= maxFrames { return false }
            if !queue.push(VideoFrame(image: image, index: place.index, time: place.time, sourceTime: sourceTime)) { return false }
            pushedCount += 1
        }
        return !(maxFrames.map { pushedCount >= $0 } ?? false)
    }

    deinit { queue.cancel() }
}

/// Owns the AVFormatContext of one open file and knows its video stream.
final class Demuxer {
    let path: String
    private(set) var format: UnsafeMutablePointer<AVFormatContext>?
    let streamIndex: Int32
    let info: VideoInfo
    let decoder: UnsafePointer<AVCodec>

    init(url: URL, maxPixels: Int = 100_000_000, fullProbe: Bool = true) throws {
        Demuxer.quietLogs
        let path = url.path
        self.path = path
        try InputFile.check(path)
        var st = stat()
        if stat(path, &st) == 0, st.st_size == 0 { throw ClipKitError.notMedia(path: path, reason: "empty file") }

        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        var status = avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let context else {
            throw ClipKitError.notMedia(path: path, reason: ffmpegMessage(status))
        }
        format = context
        // From here on `deinit` closes `context` on every path, including the throws below.
        // Probing decodes frames: refuse sizes the container headers already declare too big.
        for i in 0..<Int(context.pointee.nb_streams) {
            let parameters = context.pointee.streams[i]!.pointee.codecpar.pointee
            if parameters.codec_type == AVMEDIA_TYPE_VIDEO, Int(parameters.width) * Int(parameters.height) > maxPixels {
                avformat_close_input(&format)
                throw ClipKitError.limitExceeded(path: path, what: "frame size \(parameters.width)x\(parameters.height)",
                                                 limit: "\(maxPixels) pixels", option: "--max-pixels")
            }
        }
        // Probing decodes frames of every stream: the most expensive step of a thumbnail. Skip it
        // when the container's headers already describe the video (MP4/MOV do) and the caller
        // needs no more; `info` asks for a full probe (pixel format, frame rate estimates).
        if fullProbe || !Demuxer.headersDescribeVideo(context) {
            status = avformat_find_stream_info(context, nil)
        }
        if status < 0 {
            avformat_close_input(&format)
            throw ClipKitError.corrupt(path: path, reason: ffmpegMessage(status))
        }
        var codec: UnsafePointer<AVCodec>? = nil
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)
        guard index >= 0 else {
            avformat_close_input(&format)
            if index == ck_averror_decoder_not_found() {
                throw ClipKitError.notMedia(path: path, reason: "no decoder for its video codec")
            }
            throw ClipKitError.noVideoStream(path: path)
        }
        guard let codec else {
            avformat_close_input(&format)
            throw ClipKitError.notMedia(path: path, reason: "no decoder for its video codec")
        }
        streamIndex = index
        decoder = codec
        let stream = context.pointee.streams[Int(index)]!.pointee
        let parameters = stream.codecpar.pointee
        if parameters.width <= 0 || parameters.height <= 0 {
            avformat_close_input(&format)
            throw ClipKitError.corrupt(path: path, reason: "video stream has no picture size")
        }
        let rotation: Rotation
        if let matrix = ck_stream_display_matrix(context.pointee.streams[Int(index)]) {
            rotation = Rotation(displayMatrix: Array(UnsafeBufferPointer(start: matrix, count: 9)))
        } else {
            rotation = .identity
        }
        let timeBase = stream.time_base.seconds
        var duration: Double? = nil
        if stream.duration > 0 && stream.duration != ck_av_nopts_value() && timeBase > 0 {
            duration = Double(stream.duration) * timeBase
        } else if context.pointee.duration > 0 && context.pointee.duration != ck_av_nopts_value() {
            duration = Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        let pixelFormat = AVPixelFormat(rawValue: parameters.format)
        var formatName = "unknown", bitDepth = 8
        if let descriptor = av_pix_fmt_desc_get(pixelFormat) {
            formatName = String(cString: descriptor.pointee.name)
            bitDepth = Int(descriptor.pointee.comp.0.depth)
        }
        var hasAudio = false
        for i in 0..<Int(context.pointee.nb_streams) where context.pointee.streams[i]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            hasAudio = true
        }
        info = VideoInfo(
            container: String(cString: context.pointee.iformat.pointee.name),
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            codedWidth: Int(parameters.width), codedHeight: Int(parameters.height),
            rotation: rotation, duration: duration,
            frameRate: Demuxer.plausibleRate(stream.avg_frame_rate) ?? Demuxer.plausibleRate(stream.r_frame_rate),
            pixelFormat: formatName, bitDepth: bitDepth,
            frameCount: stream.nb_frames > 0 ? Int(stream.nb_frames) : nil,
            hasAudio: hasAudio)
    }

    deinit { avformat_close_input(&format) }

    var stream: UnsafeMutablePointer<AVStream> { format!.pointee.streams[Int(streamIndex)]! }

    /// True when the container headers alone give a video stream's codec, size, frame rate and
    /// duration, so probing by decoding can be skipped (the pixel format then stays unknown
    /// until the first frame, which the decoder does not need).
    static func headersDescribeVideo(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        let name = String(cString: context.pointee.iformat.pointee.name)
        guard name.hasPrefix("mov,mp4") else { return false }
        var found = false
        for i in 0..<Int(context.pointee.nb_streams) {
            let stream = context.pointee.streams[i]!.pointee
            let parameters = stream.codecpar.pointee
            guard parameters.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            guard parameters.codec_id != AV_CODEC_ID_NONE, parameters.width > 0, parameters.height > 0,
                  stream.avg_frame_rate.num > 0, stream.duration > 0 else { return false }
            found = true
        }
        return found
    }

    /// A frame rate, unless absent, zero or absurd (some muxers write 90000/1 or 0/0).
    static func plausibleRate(_ rate: AVRational) -> Double? {
        guard rate.num > 0, rate.den > 0 else { return nil }
        let value = Double(rate.num) / Double(rate.den)
        return value > 0.01 && value <= 1000 ? value : nil
    }

    static let quietLogs: Void = { av_log_set_level(AV_LOG_QUIET) }()
}

/// FFmpeg's text for an error code.
func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    ck_av_strerror(code, &buffer, buffer.count)
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

extension AVRational {
    var seconds: Double { den == 0 ? 0 : Double(num) / Double(den) }
}
