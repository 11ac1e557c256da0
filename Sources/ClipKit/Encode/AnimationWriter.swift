// Writes an animated WebP or an MP4 from timed RGBA frames: libavcodec encodes, libavformat muxes, commit() renames.
@_weakLinked import CFFmpeg
import Foundation

/// Writes one animation, frame by frame, into a temp file beside `destination`:
///
/// ```swift
/// let writer = try AnimationWriter(destination: url, format: .mp4, width: 480, height: 270, frameRate: 10)
/// while let frame = try frames.next() { try writer.add(frame.image, time: frame.time) }
/// try writer.finish(duration: frames.duration ?? lastTime)
/// try writer.commit()
/// ```
///
/// Timing follows the frames: frame *i* is shown from its `time` (rounded to milliseconds for
/// WebP, to 1/90000 s for MP4; the first frame from 0) until the next frame's, the last one until
/// `duration`. A frame followed within the same tick by another is dropped, as nothing would show
/// it. The encoder holds at most its own lookahead (x264: `AnimationOptions.x264Lookahead`
/// pictures), never the clip. Any error, or dropping the writer before `commit()`, removes the
/// temp file: no partial output is ever left. The same frames and options give the same bytes.
///
/// MP4 frames lose their alpha (as ffmpeg's conversion to yuv420p does) and an odd width or
/// height loses its last column or row (H.264 in yuv420p needs even sizes).
///
/// Every error it throws names the input the animation is made from (its budget's, `OutputJob`),
/// with this file first in the reason, so a conversion's failure starts with its input whichever
/// output met it: `in.mp4: cannot write output: a.webp: WebP frames are at most 16383 ...`.
final class AnimationWriter {
    let destination: URL
    let format: AnimationFormat
    /// The input, which errors name: the budget's, else (no budget) `destination`.
    let source: String
    /// The size written: the frames' size, cut to even numbers for MP4.
    let width: Int
    let height: Int
    /// The size `add` takes.
    let inputWidth: Int
    let inputHeight: Int
    private let options: AnimationOptions
    private let limits: Limits
    private let file: AtomicFile
    private let sink: OutputSink
    private var encoder: AnimationEncoder?
    private var converter: PictureConverter?
    private var muxer: OutputFormatContext?
    private let received: EncodedPacket
    /// The last frame added, sent to the encoder once the next frame's time shows it lasts at least one tick.
    private var pending: (image: RGBAImage, pts: Int64)?
    private var lastSentPts: Int64?
    /// MP4: each sent frame's pts -> the next frame's, to give each packet its duration.
    private var nextPts: [Int64: Int64] = [:]
    /// MP4: packets in decode order waiting for their duration (the next frame's time, or the end).
    private var waiting: [EncodedPacket] = []
    /// Where the last frame ends, in ticks; known from `finish`.
    private var endPts: Int64?
    private var state = State.writing
    /// Frames sent to the encoder.
    private(set) var frameCount = 0
    /// Whether any frame sent had a pixel that is not fully opaque (WebP's alpha flag).
    private var hasAlpha = false

    private enum State { case writing, finished, committed, failed }

    /// Opens the encoder and the temp file. `width` x `height` is the size of the frames to come;
    /// `frameRate` the nominal rate (the sampling fps, or the source's) for H.264's level and rate
    /// control, 30 when nil. `budget` is charged for the file's bytes, shared with the input's
    /// other outputs. Throws `encoderMissing` when this FFmpeg lacks the format's encoder, and
    /// `outputFailed` for sizes the format cannot hold.
    convenience init(destination: URL, format: AnimationFormat, options: AnimationOptions = AnimationOptions(),
                     width: Int, height: Int, frameRate: Double? = nil, limits: Limits = Limits(), budget: ByteBudget? = nil) throws {
        try self.init(destination: destination, format: format, options: options, width: width, height: height,
                      frameRate: frameRate, limits: limits, budget: budget, encoderName: nil)
    }

    /// `encoderName` replaces the format's encoder: for tests of the missing-encoder path.
    convenience init(destination: URL, format: AnimationFormat, options: AnimationOptions, width: Int, height: Int,
                     frameRate: Double?, limits: Limits, budget: ByteBudget?, encoderName: String?) throws {
        let source = budget?.input ?? destination.path
        do {
            try self.init(opening: destination, source: source, format: format, options: options, width: width, height: height,
                          frameRate: frameRate, limits: limits, budget: budget, encoderName: encoderName)
        } catch let error as ClipKitError {
            throw error.naming(input: source)
        }
    }

    private init(opening destination: URL, source: String, format: AnimationFormat, options: AnimationOptions, width: Int,
                 height: Int, frameRate: Double?, limits: Limits, budget: ByteBudget?, encoderName: String?) throws {
        let path = destination.path
        try options.validate()
        try FFmpegLibraries.load()
        self.destination = destination
        self.source = source
        self.format = format
        self.options = options
        self.limits = limits
        inputWidth = width
        inputHeight = height
        (self.width, self.height) = format == .mp4 ? (width & ~1, height & ~1) : (width, height)
        try Self.checkSize(width: width, height: height, written: (self.width, self.height), format: format, path: path)
        try limits.checkPixels(width: width, height: height, what: "\(format.displayName) frame", path: path)
        try limits.checkMemory(pictures: 1, of: Self.memoryNeeded(format: format, options: options, width: self.width, height: self.height),
                               what: "\(format.displayName) encoder buffers", path: path)

        let muxerFormat = av_guess_format(format.muxerName, nil, nil)
        let globalHeader = muxerFormat.map { $0.pointee.flags & AVFMT_GLOBALHEADER != 0 } ?? false
        let encoder = try AnimationEncoder(format: format, options: options, width: self.width, height: self.height,
                                           frameRate: frameRate, globalHeader: globalHeader, path: path, encoderName: encoderName)
        self.encoder = encoder
        converter = try PictureConverter(width: self.width, height: self.height, format: encoder.pixelFormat, path: path)
        received = try EncodedPacket(path: path)
        file = try AtomicFile(destination: destination)
        sink = OutputSink(file: file, budget: budget, deadline: limits.deadline)
        do {
            let muxer = try OutputFormatContext(muxer: format.muxerName, encoder: encoder.context, sink: sink)
            self.muxer = muxer
            switch format {
            // The loop count goes into the ANIM chunk with the last frame's duration
            // (WebPAnimationPatch); 0 stops the muxer patching a fixed offset itself.
            case .webp: try muxer.writeHeader(options: ["loop": "0"])
            case .mp4: try muxer.writeHeader(options: ["movflags": "+faststart"])
            }
        } catch {
            discard()
            throw error
        }
    }

    deinit {
        if state != .committed { file.discard() }
    }

    /// Refuses sizes the format cannot hold.
    private static func checkSize(width: Int, height: Int, written: (width: Int, height: Int), format: AnimationFormat, path: String) throws {
        let name = format.displayName
        if width < 1 || height < 1 || written.width < 1 || written.height < 1 {
            let least = format == .mp4 ? "2x2" : "1x1"
            throw ClipKitError.outputFailed(path: path, reason: "\(name) needs frames of at least \(least) pixels, got \(width)x\(height)")
        }
        if written.width > format.maxDimension || written.height > format.maxDimension {
            let most = format.maxDimension
            throw ClipKitError.outputFailed(path: path, reason: "\(name) frames are at most \(most) pixels wide and high, got \(width)x\(height) "
                                            + "(--size \(most)x\(most) fits them)")
        }
    }

    /// Bytes the encoder and this writer may hold at once: the encoder's pictures, the frame
    /// waiting in `pending` and the converted frame.
    static func memoryNeeded(format: AnimationFormat, options: AnimationOptions, width: Int, height: Int) -> Int {
        AnimationEncoder.heldPictureBytes(format: format, options: options, width: width, height: height) + 2 * width * height * 4
    }

    /// Adds a frame shown from `time` seconds (from the start of the animation). Times must not
    /// decrease.
    func add(_ image: RGBAImage, time: Double) throws {
        try failing {
            guard state == .writing else { throw ClipKitError.internalFailure(path: destination.path, reason: "frame added after finish") }
            guard image.width == inputWidth, image.height == inputHeight else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "frame of \(image.width)x\(image.height) in a \(inputWidth)x\(inputHeight) animation")
            }
            guard time.isFinite, time >= 0 else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "frame time \(time) is not a time")
            }
            try limits.checkDeadline(source)
            // The first frame is shown from the start: a WebP cannot begin with nothing.
            let pts = pending == nil && frameCount == 0 ? 0 : Int64((time * Double(format.ticksPerSecond)).rounded())
            if let pending {
                if pts < pending.pts {
                    throw ClipKitError.internalFailure(path: destination.path, reason: "frame times go backwards (\(time) s)")
                }
                if pts > pending.pts {
                    try encode(pending.image, pts: pending.pts)
                }
            }
            try limits.checkFrames(frameCount + 1, path: source)
            pending = (image, pts)
        }
    }

    /// Ends the animation at `duration` seconds (the last frame lasts until then, at least one
    /// tick) and writes the rest of the file. Throws `noFrames` when no frame was added. The file
    /// is complete but still a temp file until `commit()`.
    func finish(duration: Double) throws {
        try failing {
            guard state == .writing else { throw ClipKitError.internalFailure(path: destination.path, reason: "finished twice") }
            guard let last = pending, let encoder, let muxer else {
                throw ClipKitError.noFrames(path: destination.path, reason: "no frames to write")
            }
            let end = duration.isFinite ? Int64((duration * Double(format.ticksPerSecond)).rounded()) : 0
            endPts = max(end, last.pts + 1)
            try encode(last.image, pts: last.pts)
            pending = nil
            try encoder.send(nil)
            try drain()
            try writeWaiting()
            try muxer.finish()
            state = .finished
            release()
        }
    }

    /// Renames the finished file over `destination`.
    func commit() throws {
        try naming {
            guard state == .finished else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "commit before finish")
            }
            try file.commit()
            state = .committed
        }
    }

    /// The finished file, closed, for the caller to commit with the input's other outputs.
    func handOver() throws -> FinishedFile {
        try naming {
            guard state == .finished else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "handed over before finish")
            }
            state = .committed
            return try file.finishWriting()
        }
    }

    /// Abandons the animation: the temp file is removed, `destination` is untouched.
    func discard() {
        guard state != .committed else { return }
        state = .failed
        release()
        file.discard()
    }

    /// Bytes written so far (the file's size once finished).
    var byteCount: Int { Int(sink.size) }

    /// Frees the encoder, converter and muxer (the muxer before the encoder whose parameters it copied).
    private func release() {
        muxer = nil
        converter = nil
        encoder = nil
        pending = nil
        waiting.removeAll()
    }

    /// Runs `body`; on any error discards the output before throwing it (named as the input's).
    private func failing(_ body: () throws -> Void) throws {
        do {
            try naming(body)
        } catch {
            discard()
            throw error
        }
    }

    /// Runs `body`, its errors named as the input's: the encoder, muxer, sink and file below
    /// name this file.
    private func naming<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ClipKitError {
            throw error.naming(input: source)
        }
    }

    private func encode(_ image: RGBAImage, pts: Int64) throws {
        guard let encoder, let converter else { return }
        if format == .webp && !hasAlpha { hasAlpha = !image.isOpaque }
        let frame = try converter.frame(from: image, pts: pts, path: destination.path)
        try encoder.send(frame)
        if format == .mp4, let lastSentPts { nextPts[lastSentPts] = pts }
        lastSentPts = pts
        frameCount += 1
        try drain()
    }

    /// Takes every packet the encoder has ready.
    private func drain() throws {
        guard let encoder else { return }
        while try encoder.receive(into: received.pointer) {
            try limits.checkDeadline(source)
            let packet = try EncodedPacket(takingFrom: received, path: destination.path)
            // libwebp's encoder returns an empty packet per frame and the whole file at the end.
            if packet.pointer.pointee.size == 0 { continue }
            switch format {
            case .webp: try writeWebP(packet)
            case .mp4:
                waiting.append(packet)
                try writeWaiting()
            }
        }
    }

    /// The assembled WebP, with its loop count and last frame's duration set.
    private func writeWebP(_ packet: EncodedPacket) throws {
        guard let muxer, let endPts else {
            throw ClipKitError.internalFailure(path: destination.path, reason: "WebP data before the end")
        }
        let p = packet.pointer
        if av_packet_make_writable(p) < 0 { throw ClipKitError.internalFailure(path: destination.path, reason: "out of memory") }
        _ = WebPAnimationPatch.apply(to: UnsafeMutableBufferPointer(start: p.pointee.data, count: Int(p.pointee.size)),
                                     milliseconds: Int(endPts), loopCount: options.loopCount, hasAlpha: hasAlpha)
        try muxer.write(p)
    }

    /// Writes the waiting MP4 packets, in order, as far as their durations are known: a frame
    /// lasts until the next frame's pts, the last one until the end. The muxer takes the last
    /// packet's duration for the last sample and the edit list; without B-frames (see
    /// `AnimationOptions.x264BFrames`) decode order is presentation order, so the sample table,
    /// the media header and the edit list all last exactly until the end.
    private func writeWaiting() throws {
        guard let muxer else { return }
        while let head = waiting.first {
            let p = head.pointer
            let pts = p.pointee.pts
            let next = nextPts[pts] ?? (pts == lastSentPts ? endPts : nil)
            guard let next else { return }
            nextPts[pts] = nil
            p.pointee.duration = next - pts
            av_packet_rescale_ts(p, AVRational(num: 1, den: format.ticksPerSecond), muxer.stream.pointee.time_base)
            try muxer.write(p)
            waiting.removeFirst()
        }
    }
}
