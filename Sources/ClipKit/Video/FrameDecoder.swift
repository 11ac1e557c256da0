// The demux-decode loop (send packet, receive frames, flush), feeding sampled frames into a bounded queue: set-up, passes, emission.
@_weakLinked import CFFmpeg
import Foundation

/// Owns the codec context of one decode and runs the loop of FFmpeg's `demux_decode.c` on the
/// decode thread: read a packet, send it, receive every frame it releases, flush at the end.
final class FrameDecoder: FrameProducer {
    // Internal, not private, where the clock and seeks (FrameDecoder+Timing.swift) or a decode
    // pass (FrameDecoder+Pass.swift) read or set them.
    let demuxer: Demuxer
    let options: FrameReadOptions
    private let codecContext: CodecContext
    var codec: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    private let scaler = Scaler()
    /// A paletted stream's palette, given again after each seek (nil for other streams).
    var palette: PaletteCarrier?
    let timeBase: Double
    let origin: Int64?
    var sampler: FrameSampler
    /// Seeks over what sparse ticks cannot show (`options.skipsBetweenTicks`).
    var skipper: TickSkipper?
    let expectedCount: Int?
    /// For raw video, the bytes of a whole picture: a shorter packet is not decoded (`RawPictureSize`).
    let rawPictureBytes: Int?
    /// Motion JPEG: each packet is checked for its end marker (`JPEGEndMarker`).
    let checksJPEGEnd: Bool

    init(demuxer: Demuxer, options: FrameReadOptions) throws {
        self.demuxer = demuxer
        self.options = options
        let info = demuxer.info
        let stream = demuxer.stream
        timeBase = stream.pointee.time_base.seconds
        origin = demuxer.startTime
        demuxerMoved = demuxer.movedAtOpen
        damage = DecodeDamage(threads: options.limits.decoderThreads)
        sampler = FrameSampler(start: options.start, end: options.end, interval: options.tickInterval)
        if options.skipsBetweenTicks && options.fps != nil && !options.keyframesOnly {
            skipper = TickSkipper(demuxer: demuxer, origin: origin ?? 0)
        }
        if let duration = info.duration, options.start >= duration, duration > 0 {
            throw ClipKitError.startPastEnd(path: demuxer.path, start: options.start, duration: duration)
        }
        expectedCount = options.expectedCount(duration: info.duration, frameRate: info.frameRate)
        rawPictureBytes = RawPictureSize.bytes(of: stream.pointee.codecpar.pointee)
        checksJPEGEnd = JPEGEndMarker.applies(to: stream.pointee.codecpar.pointee)
        decodeOrder = DecodeOrderTimes(codec: stream.pointee.codecpar.pointee.codec_id, container: info.container)

        if PaletteCarrier.applies(to: stream) { palette = PaletteCarrier() }
        scaler.keepsPaletteAlpha = Scaler.palettesCarryAlpha(demuxer.decoder.pointee.id)
        codecContext = try CodecContext(codec: demuxer.decoder, path: demuxer.path)
        let context = codecContext.pointer
        var status = avcodec_parameters_to_context(context, stream.pointee.codecpar)
        if status < 0 { throw ClipKitError.corrupt(path: demuxer.path, reason: ffmpegMessage(status)) }
        context.pointee.pkt_timebase = stream.pointee.time_base
        CodecContext.requestExactCropping(context)
        context.pointee.thread_count = Int32(Self.threadCount(info: info, options: options))
        // Frame threads add a frame of latency per thread: wasted when only the first frame is
        // wanted. HEVC and MPEG-1/2 decode on slice threads only (`slicesSuffice`).
        context.pointee.thread_type = options.maxFrames == 1 || Self.slicesSuffice(demuxer.decoder.pointee.id)
            ? FF_THREAD_SLICE : (FF_THREAD_FRAME | FF_THREAD_SLICE)
        if options.keyframesOnly { context.pointee.skip_frame = AVDISCARD_NONKEY }
        if options.limits.decoderThreads == .perCoreUntilDamage { codecContext.reportsDamage() }
        // The second attempt at a damaged input, and HEVC (no concealment) always, on zeroed pictures.
        if options.limits.decoderThreads == .one || demuxer.decoder.pointee.id == AV_CODEC_ID_HEVC { codecContext.clearsNewPictures() }
        status = avcodec_open2(context, demuxer.decoder, nil)
        if status < 0 {
            throw ClipKitError.notMedia(path: demuxer.path, reason: "cannot open the \(info.codec) decoder: \(ffmpegMessage(status))")
        }
    }

    /// Codecs whose streams are mostly cut for slice threads (MPEG-1/2: a slice a row; HEVC from
    /// x265: wavefront rows), and whose decoders on frame threads race on damage they do not
    /// report: a damaged HEVC MKV gave two different GIFs in 15 runs each, an MPEG-2 TS one in
    /// 30, with nothing logged or flagged (ffmpeg's own frame-threaded decode of them differs
    /// between runs too). Slice threads are deterministic, damage or not.
    static func slicesSuffice(_ codec: AVCodecID) -> Bool {
        [AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO].contains(codec)
    }

    /// Decoder threads: one per core, fewer when the source pictures are large. Each frame thread
    /// holds pictures of its own, so memory would grow with the core count; half of
    /// `--max-memory` goes to the decoder (reference pictures plus one per thread).
    static func threadCount(info: VideoInfo, options: FrameReadOptions) -> Int {
        if options.limits.decoderThreads == .one { return 1 }
        let pictures = options.limits.picturesInMemory(of: info.decodedPictureBytes) / 2
        return min(max(options.threadCount, 1), max(1, pictures - 4))
    }

    /// Gives up a decode at the first damage, when the job does it again on one thread with
    /// zeroed pictures (`DecoderThreads.perCoreUntilDamage`): frame threads conceal damage
    /// differently from run to run, slice threads differently from one thread, and what a
    /// concealment reads from a fresh picture is what its buffer held before (an MPEG-2 TS with
    /// damage on slice threads gave two different frame sets in 10 runs). Damage expected after a
    /// seek's landing (mid-GOP) is not counted by the callers.
    func checkDamage() throws {
        guard options.limits.decoderThreads == .perCoreUntilDamage else { return }
        throw ThreadedDecodeDamage()
    }

    /// Gives up as `checkDamage` when the decoder logged damage (`DecoderDamageLog`), while the
    /// log is watched: until the first seek, whose landings log damage that is expected.
    func checkLoggedDamage() throws {
        if watchesLog, codecContext.takeLoggedDamage() { try checkDamage() }
    }

    /// The decode loop. Runs until the input ends, the range is done, or the consumer cancels;
    /// then sends the end message, or throws if nothing could be decoded.
    func run(into output: inout FrameOutput) throws {
        output.recording?.source = DecodedFrames.Source(info: demuxer.info, keepsPaletteAlpha: scaler.keepsPaletteAlpha)
        try decodeAll(into: &output)
    }

    var candidate: UnsafeMutablePointer<AVFrame>?
    var candidateTime = 0.0
    /// Whether `candidate` holds a frame of this pass.
    var hasCandidate = false
    var lastTime: Double?
    var lastDelta = 0.0
    /// The last frame's own duration (its packet's), in seconds; 0 when it has none.
    var lastDuration = 0.0
    /// Whether every packet read so far has had a timestamp (`skipIfUnneeded`).
    var packetsTimed = true
    /// Whether damage the decoder logs counts (`checkLoggedDamage`): until the demuxer first moves.
    var watchesLog = true
    /// H.264/HEVC in AVI: pictures timed by their packets' decode times, in turn.
    var decodeOrder: DecodeOrderTimes
    /// The timestamps of the last packets read (`skipIfUnneeded`).
    var laterTimestamps = RecentTimestamps()
    /// The smallest interval between decoded frames: what a real frame duration is at least half of.
    var shortestDelta: Double?
    var decoded = 0
    var stopped = false
    /// The last pass read on to the end of the file (not stopped by the range or the consumer).
    var readToEnd = false
    var firstPacketError: String?
    /// Damage of the file's own the decode went past, for a warning (`DecodeDamage`).
    var damage: DecodeDamage
    /// Whether a pass has sought or read (a later pass from the beginning must then rewind).
    var demuxerMoved = false
    /// Until the pass's first timed frame, in a stream with timestamps (a start time): the
    /// frames without one decoded so far, held to be placed before it. `ffmpeg -ss 1.3 -i in.mp4
    /// -c copy -avoid_negative_ts disabled out.mkv` keeps the pictures before the cut for
    /// decoding, Matroska cannot store their negative times, and they come out untimed, then the
    /// cut's frames timed from just before 0. Counted on from 0 they ran to 1.28 s and time went
    /// back (explode wrote a -1240 ms delay); ffprobe gives them no time, and its first timed
    /// frame follows them. A stream without timestamps (raw H.264) counts every frame on.
    var leadOpen = false
    var heldLead: [UnsafeMutablePointer<AVFrame>] = []

    /// Runs decode passes until one reaches the start cleanly: a pass that has to be given up
    /// (see `decodePass`, FrameDecoder+Pass.swift) is followed by one from an earlier point
    /// (`SeekPlan`), finally from the very beginning, which is what a full decode shows: by a
    /// seek, and when that lands late, from the file opened again.
    private func decodeAll(into sequence: inout FrameOutput) throws {
        let path = demuxer.path
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        candidate = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
            av_frame_free(&candidate)
        }
        guard let packet, let frame else { throw ClipKitError.internalFailure(path: path, reason: "out of memory") }
        var plan = SeekPlan(start: options.start)
        if palette != nil && (options.start > 0 || skipper != nil) {
            // Before any seek skips it: the packet that carries the header palette.
            palette?.prime(format: demuxer.format, streamIndex: demuxer.streamIndex, packet: packet)
            demuxerMoved = true
        }
        while true {
            hasCandidate = false
            let clean = try decodePass(from: plan.point, packet: packet, frame: frame, into: &sequence)
            if clean || !plan.advance() { break }
            // Start over from an earlier point: nothing of this pass was queued.
            av_frame_unref(candidate)
            lastTime = nil
            lastDelta = 0
            lastDuration = 0
            shortestDelta = nil
            decoded = 0
            stopped = false
            sampler = FrameSampler(start: options.start, end: options.end, interval: options.tickInterval)
            laterTimestamps = RecentTimestamps()
            if skipper != nil { skipper = TickSkipper(demuxer: demuxer, origin: origin ?? 0) }
        }
        // Damage logged by the frame threads, every one of them done (a flush waits for them).
        if watchesLog {
            if stopped { avcodec_flush_buffers(codec) }
            try checkLoggedDamage()
        }
        let end = clipEnd()
        if hasCandidate && !stopped {
            try emit(nextTime: nil, clipEnd: end, sequence: &sequence)
        }
        if sequence.pushedCount == 0 {
            if decoded == 0 {
                throw ClipKitError.corrupt(path: path, reason: firstPacketError.map { "no frame could be decoded (\($0))" } ?? "no frame could be decoded")
            }
            if let lastTime, lastTime < options.start {
                throw ClipKitError.startPastEnd(path: path, start: options.start, duration: end)
            }
            throw ClipKitError.noFrames(path: path, reason: "no frame in the requested range")
        }
        let outputEnd = min(options.end ?? end, end)
        try handOver(&sequence)
        let short = endsShort(at: end)
        // Reading stopped at an error: said unless the cut-short warning says the file ends early.
        let readStop = readToEnd && short == nil ? demuxer.readStopWarning(end: end) : nil
        sequence.end(duration: max(outputEnd - options.start, 0), warnings: [damage.warning, short, readStop].compactMap { $0 })
    }

    /// Untimed frames held past this many (a quarter of `--max-memory` in decoded pictures, at
    /// most 300) are counted on: a cut lies within a GOP of its keyframe, and x264's longest by
    /// default is 250 frames.
    var heldLeadLimit: Int {
        min(300, options.limits.picturesInMemory(of: demuxer.info.decodedPictureBytes) / 4)
    }

    func releaseLead() {
        for var held in heldLead as [UnsafeMutablePointer<AVFrame>?] { av_frame_free(&held) }
        heldLead = []
    }

    /// Converts the candidate frame once and queues it for each output place it fills.
    func emit(nextTime: Double?, clipEnd: Double?, sequence: inout FrameOutput) throws {
        guard let candidate else { return }
        if demuxer.adoptGeometry(of: candidate) {
            sequence.recording?.source = DecodedFrames.Source(info: demuxer.info, keepsPaletteAlpha: scaler.keepsPaletteAlpha)
        }
        let places = sampler.emissions(candidateTime: candidateTime, nextTime: nextTime, clipEnd: clipEnd)
        guard !places.isEmpty else { return }
        try handOver(&sequence)
        sequence.recording?.keep(candidate, at: places, sourceTime: candidateTime)
        if sequence.consumerStopped {
            // Decoding on for the recording only: no picture is made.
            if !sequence.passOver(places) { stopped = true }
            return
        }
        let image = try scaler.uprightImage(from: candidate, info: demuxer.info, size: sequence.size)
        sequence.recording?.keepScaled(image, size: sequence.size)
        if !sequence.push(image, at: places, sourceTime: candidateTime) { stopped = true }
    }

    /// A later pass waiting for the frames (`DecodeSuccession`), once the consumer stopped:
    /// the pictures recorded so far, scaled to its size and queued at their places (as
    /// `DecodedFramesReplay` would), then it is the consumer of the pictures still to come.
    private func handOver(_ sequence: inout FrameOutput) throws {
        guard let recording = sequence.recording, sequence.takeSuccessor() else { return }
        for picture in recording.pictures {
            try options.limits.checkDeadline(demuxer.path)
            let image = try picture.image(at: sequence.size, info: demuxer.info, scaler: scaler)
            if !sequence.replay(image, at: picture.places, sourceTime: picture.sourceTime) { return }
        }
    }
}
