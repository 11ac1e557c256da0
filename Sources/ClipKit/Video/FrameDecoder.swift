// The demux-decode loop (send packet, receive frames, flush), feeding sampled frames into a bounded queue.
@_weakLinked import CFFmpeg
import Foundation

/// Owns the codec context of one decode and runs the loop of FFmpeg's `demux_decode.c` on the
/// decode thread: read a packet, send it, receive every frame it releases, flush at the end.
final class FrameDecoder: FrameProducer {
    // Internal, not private, where the clock and seeks (FrameDecoder+Timing.swift) read or set them.
    let demuxer: Demuxer
    private let options: FrameReadOptions
    private let codecContext: CodecContext
    var codec: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    private let scaler = Scaler()
    /// A paletted stream's palette, given again after each seek (nil for other streams).
    var palette: PaletteCarrier?
    let timeBase: Double
    let origin: Int64?
    var sampler: FrameSampler
    /// Seeks over what sparse ticks cannot show (`options.skipsBetweenTicks`).
    private var skipper: TickSkipper?
    let expectedCount: Int?

    init(demuxer: Demuxer, options: FrameReadOptions) throws {
        self.demuxer = demuxer
        self.options = options
        let info = demuxer.info
        let stream = demuxer.stream
        timeBase = stream.pointee.time_base.seconds
        let start = stream.pointee.start_time
        origin = start == ck_av_nopts_value() ? nil : start
        sampler = FrameSampler(start: options.start, end: options.end, interval: options.tickInterval)
        if options.skipsBetweenTicks && options.fps != nil && !options.keyframesOnly {
            skipper = TickSkipper(demuxer: demuxer, origin: origin ?? 0)
        }
        if let duration = info.duration, options.start >= duration, duration > 0 {
            throw ClipKitError.startPastEnd(path: demuxer.path, start: options.start, duration: duration)
        }
        expectedCount = options.expectedCount(duration: info.duration, frameRate: info.frameRate)

        if PaletteCarrier.applies(to: stream) { palette = PaletteCarrier() }
        scaler.keepsPaletteAlpha = Scaler.palettesCarryAlpha(demuxer.decoder.pointee.id)
        codecContext = try CodecContext(codec: demuxer.decoder, path: demuxer.path)
        let context = codecContext.pointer
        var status = avcodec_parameters_to_context(context, stream.pointee.codecpar)
        if status < 0 { throw ClipKitError.corrupt(path: demuxer.path, reason: ffmpegMessage(status)) }
        context.pointee.pkt_timebase = stream.pointee.time_base
        context.pointee.thread_count = Int32(Self.threadCount(info: info, options: options))
        // Frame threads add a frame of latency per thread: wasted when only the first frame is wanted.
        context.pointee.thread_type = options.maxFrames == 1 ? FF_THREAD_SLICE : (FF_THREAD_FRAME | FF_THREAD_SLICE)
        if options.keyframesOnly { context.pointee.skip_frame = AVDISCARD_NONKEY }
        status = avcodec_open2(context, demuxer.decoder, nil)
        if status < 0 {
            throw ClipKitError.notMedia(path: demuxer.path, reason: "cannot open the \(info.codec) decoder: \(ffmpegMessage(status))")
        }
    }

    /// Decoder threads: one per core, fewer when the source pictures are large. Each frame thread
    /// holds pictures of its own, so memory would grow with the core count; half of
    /// `--max-memory` goes to the decoder (reference pictures plus one per thread).
    static func threadCount(info: VideoInfo, options: FrameReadOptions) -> Int {
        let pictures = options.limits.picturesInMemory(of: info.decodedPictureBytes) / 2
        return min(max(options.threadCount, 1), max(1, pictures - 4))
    }

    /// The decode loop. Runs until the input ends, the range is done, or the consumer cancels;
    /// then sends the end message, or throws if nothing could be decoded.
    func run(into output: inout FrameOutput) throws {
        output.recording?.source = DecodedFrames.Source(info: demuxer.info, keepsPaletteAlpha: scaler.keepsPaletteAlpha)
        try decodeAll(into: &output)
    }

    private var candidate: UnsafeMutablePointer<AVFrame>?
    private var candidateTime = 0.0
    var lastTime: Double?
    var lastDelta = 0.0
    /// Whether every packet read so far has had a timestamp (`skipIfUnneeded`).
    var packetsTimed = true
    /// The smallest interval between decoded frames: what a real frame duration is at least half of.
    var shortestDelta: Double?
    var decoded = 0
    private var stopped = false
    private var firstPacketError: String?
    /// Whether a pass has sought or read (a later pass from the beginning must then rewind).
    var demuxerMoved = false
    /// Until the pass's first timed frame, in a stream with timestamps (a start time): the
    /// frames without one decoded so far, held to be placed before it. `ffmpeg -ss 1.3 -i in.mp4
    /// -c copy -avoid_negative_ts disabled out.mkv` keeps the pictures before the cut for
    /// decoding, Matroska cannot store their negative times, and they come out untimed, then the
    /// cut's frames timed from just before 0. Counted on from 0 they ran to 1.28 s and time went
    /// back (explode wrote a -1240 ms delay); ffprobe gives them no time, and its first timed
    /// frame follows them. A stream without timestamps (raw H.264) counts every frame on.
    private var leadOpen = false
    private var heldLead: [UnsafeMutablePointer<AVFrame>] = []

    /// Runs decode passes until one reaches the start cleanly: a pass that has to be given up
    /// (see `decodePass`) is followed by one from an earlier point (`SeekPlan`), finally from
    /// the very beginning, which is what a full decode shows: by a seek, and when that lands
    /// late, from the file opened again.
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
        var hasCandidate = false
        if palette != nil && (options.start > 0 || skipper != nil) {
            // Before any seek skips it: the packet that carries the header palette.
            palette?.prime(format: demuxer.format, streamIndex: demuxer.streamIndex, packet: packet)
            demuxerMoved = true
        }
        while true {
            hasCandidate = false
            let clean = try decodePass(from: plan.point, packet: packet, frame: frame, hasCandidate: &hasCandidate, into: &sequence)
            if clean || !plan.advance() { break }
            // Start over from an earlier point: nothing of this pass was queued.
            av_frame_unref(candidate)
            lastTime = nil
            lastDelta = 0
            shortestDelta = nil
            decoded = 0
            stopped = false
            sampler = FrameSampler(start: options.start, end: options.end, interval: options.tickInterval)
            if skipper != nil { skipper = TickSkipper(demuxer: demuxer, origin: origin ?? 0) }
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
        sequence.end(duration: max(outputEnd - options.start, 0))
    }

    /// One pass of FFmpeg's demux/decode loop from `point`. False when the pass must be given up
    /// before it queued anything, because the seek point was no place to start decoding: the
    /// seek failed, the first frame decoded lies after the start (the demuxer's keyframe was
    /// late), a frame came out damaged (a "keyframe" that needs earlier frames), the decoder
    /// dropped a picture sent before the start, or nothing decoded at all. Decoded timestamps
    /// and the decoder's own intra flag decide, never packet flags: frames before the first
    /// intra picture after a seek are dropped unseen. From the beginning no pass is given up
    /// for damage, which is the file's own; one that a seek there started is given up when its
    /// first frame is later than the start or none decodes (the seek landed late: a Matroska
    /// index that does not list the first keyframe sends it to the first keyframe listed).
    private func decodePass(from point: SeekPlan.Point, packet: UnsafeMutablePointer<AVPacket>, frame: UnsafeMutablePointer<AVFrame>,
                            hasCandidate: inout Bool, into sequence: inout FrameOutput) throws -> Bool {
        let codec = self.codec
        let path = demuxer.path
        let mayGiveUp: Bool
        if case .before = point { mayGiveUp = true } else { mayGiveUp = false }
        let rewound = point == .beginning && demuxerMoved
        guard try seek(to: point) || !mayGiveUp else { return false }
        var givenUp = false
        /// After a seek, the time the landing must reach, until the decoder gives its first intra picture.
        var landing: Double? = mayGiveUp ? options.start : nil
        var leading = LeadingPictures(afterSeek: mayGiveUp)
        /// The latest packet time at or before the start sent to the decoder: a decoder that drops
        /// a picture whose references were not decoded (H.264 past an open-GOP landing) would
        /// otherwise leave the frame before it on screen at the start.
        var latestSent: Double?
        func missesSentFrame() -> Bool {
            guard mayGiveUp, sequence.pushedCount == 0, let latestSent else { return false }
            return latestSent > candidateTime + FrameSampler.epsilon
        }
        /// Where to seek next to skip ahead (or, after a bad landing, to go back to); see `TickSkipper`.
        var relocation: SeekPlan.Point?
        leadOpen = origin != nil
        defer { releaseLead() }

        /// Seeks for the skipper, dropping the candidate (no tick can show it any more); throws
        /// when not even the beginning can be sought to.
        func relocate() throws {
            while let point = relocation {
                relocation = nil
                av_frame_unref(candidate)
                hasCandidate = false
                lastTime = nil
                if try seek(to: point) {
                    if case .before = point {
                        landing = skipper?.pendingTick
                        leading = LeadingPictures(afterSeek: true)
                    } else {
                        // From the beginning the untimed lead comes again.
                        releaseLead()
                        leadOpen = origin != nil
                    }
                    return
                }
                relocation = skipper?.retryPoint()
            }
            throw ClipKitError.corrupt(path: path, reason: "cannot seek back after skipping ahead")
        }

        func receiveFrames() throws {
            while !stopped && !givenUp {
                let status = avcodec_receive_frame(codec, frame)
                if status == ck_averror_eagain() || status == ck_averror_eof() { return }
                if status < 0 {
                    // A damaged frame: keep what decoded so far, as players do. Before the chain's
                    // first intra picture it is expected (the landing was mid-GOP) and harmless.
                    firstPacketError = firstPacketError ?? ffmpegMessage(status)
                    if landing == nil { chainBroken() }
                    return
                }
                // Headers can lie: a stream may switch to a larger size mid-way.
                try options.limits.checkPixels(width: Int(frame.pointee.width), height: Int(frame.pointee.height),
                                               what: "decoded frame", path: path)
                let time = presentationTime(of: frame)
                let damaged = frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || frame.pointee.decode_error_flags != 0
                if let target = landing {
                    // After a seek only a chain that starts at a picture the decoder itself calls
                    // intra is clean: containers flag P-frames as keyframes, and a decode that
                    // starts mid-GOP (MPEG-TS) makes pictures from references it never had.
                    let intra = frame.pointee.key_frame != 0 || frame.pointee.pict_type == AV_PICTURE_TYPE_I
                    if !intra || damaged {
                        av_frame_unref(frame)
                        // Frames before the target may be passed over; one after it shows the
                        // landing missed it.
                        if time > target + FrameSampler.epsilon {
                            landingMissed()
                            return
                        }
                        continue
                    }
                    landing = nil
                }
                decoded += 1
                if sequence.pushedCount == 0 && ((mayGiveUp && damaged) || ((mayGiveUp || rewound) && decoded == 1 && time > options.start + FrameSampler.epsilon)) {
                    givenUp = true
                    return
                }
                if leadOpen {
                    let timed = frame.pointee.best_effort_timestamp != ck_av_nopts_value()
                    if !timed && heldLead.count < heldLeadLimit, let held = av_frame_alloc() {
                        av_frame_move_ref(held, frame)
                        heldLead.append(held)
                        continue
                    }
                    // The first timed frame places those held before it; when too many come
                    // untimed, they and this one are counted on from 0.
                    guard try takeLead(before: timed ? time : nil) else { return }
                    if !timed {
                        guard try take(frame, time: presentationTime(of: frame), damaged: damaged) else { return }
                        continue
                    }
                }
                guard try take(frame, time: time, damaged: damaged) else { return }
            }
        }

        /// Makes `frame` the candidate, emitting the one before; false when the pass stops
        /// taking frames here (given up, or a relocation).
        func take(_ frame: UnsafeMutablePointer<AVFrame>, time: Double, damaged: Bool) throws -> Bool {
            if skipper?.accepts(frameTime: time, damaged: damaged) == false {
                // Skipped past the tick's frame: decode it from an earlier point.
                relocation = skipper?.retryPoint()
                return false
            }
            try options.checkTimestamp(time, path: demuxer.path)
            if let last = lastTime, time > last {
                lastDelta = time - last
                shortestDelta = min(shortestDelta ?? lastDelta, lastDelta)
            }
            lastTime = time
            if hasCandidate && time > options.start + FrameSampler.epsilon && missesSentFrame() {
                givenUp = true
                return false
            }
            if hasCandidate {
                if time <= candidateTime + FrameSampler.epsilon {
                    // Not later than the candidate (duplicate or out-of-order timestamp): the newer frame wins.
                } else {
                    try emit(nextTime: time, clipEnd: nil, sequence: &sequence)
                }
            }
            av_frame_unref(candidate)
            av_frame_move_ref(candidate, frame)
            candidateTime = time
            hasCandidate = true
            if sampler.isExhausted(candidateTime: candidateTime) && options.end != nil { stopped = true }
            return true
        }

        /// Takes the untimed frames held, one frame at the nominal rate apart, the last one
        /// frame before `firstTime` (or counted on from the last time without one), and ends
        /// the lead; false when the pass stops taking frames.
        func takeLead(before firstTime: Double?) throws -> Bool {
            leadOpen = false
            let step = 1 / (demuxer.info.frameRate ?? 25)
            for (k, held) in heldLead.enumerated() {
                let time = firstTime.map { $0 - Double(heldLead.count - k) * step } ?? presentationTime(of: held)
                guard try take(held, time: time, damaged: false), !stopped else { return false }
            }
            releaseLead()
            return true
        }

        /// A seek landed where no clean chain reaches the target: the pass is given up (before
        /// anything is queued), or the skipper goes back to an earlier point.
        func landingMissed() {
            if skipper?.pendingTick != nil {
                relocation = skipper?.retryPoint()
            } else if mayGiveUp && sequence.pushedCount == 0 {
                givenUp = true
            }
            landing = nil
        }

        /// A decode error after the chain started: what follows may be built on a broken picture.
        func chainBroken() {
            if mayGiveUp && sequence.pushedCount == 0 { givenUp = true }
        }

        repeat {
            if relocation != nil { try relocate() }
            while !stopped && !givenUp {
                try options.limits.checkDeadline(path)
                // Only once a tick is out: until then the pass may still be given up.
                if relocation == nil, sequence.pushedCount > 0, let tick = sampler.nextTickTime, skipper?.shouldJump(to: tick) == true {
                    relocation = skipper?.jump(to: tick)
                }
                if relocation != nil { try relocate() }
                let status = av_read_frame(demuxer.format, packet)
                if status < 0 { break }  // end of file, or a truncated one: decode what we have
                defer { av_packet_unref(packet) }
                guard packet.pointee.stream_index == demuxer.streamIndex else { continue }
                if options.keyframesOnly && packet.pointee.flags & AV_PKT_FLAG_KEY == 0 { continue }
                if leading.isLeading(packet.pointee) { continue }
                palette?.pass(packet)
                skipper?.noteRead(packet.pointee)
                if options.fps != nil { skipIfUnneeded(packet.pointee, codec: codec) }
                if mayGiveUp && packet.pointee.pts != ck_av_nopts_value() && codec.pointee.skip_frame == AVDISCARD_DEFAULT
                    && packet.pointee.flags & AV_PKT_FLAG_DISCARD == 0 {
                    let time = Double(packet.pointee.pts - (origin ?? 0)) * timeBase
                    if time <= options.start + FrameSampler.epsilon { latestSent = max(latestSent ?? time, time) }
                }
                let sent = avcodec_send_packet(codec, packet)
                if sent < 0 && sent != ck_averror_eagain() {
                    firstPacketError = firstPacketError ?? ffmpegMessage(sent)
                    if landing == nil { chainBroken() }
                    continue
                }
                try receiveFrames()
            }
            if givenUp { return false }
            // The deadline also interrupts av_read_frame, which then looks like the end of the file.
            try options.limits.checkDeadline(path)
            if !stopped && relocation == nil {
                codec.pointee.skip_frame = options.keyframesOnly ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
                avcodec_send_packet(codec, nil)
                try receiveFrames()
            }
        } while relocation != nil && !stopped
        // No frame came with a timestamp: those held are counted on.
        if leadOpen && !givenUp && !stopped { _ = try takeLead(before: nil) }
        if givenUp || ((mayGiveUp || rewound) && decoded == 0) { return false }
        if hasCandidate && missesSentFrame() { return false }
        return true
    }

    /// Untimed frames held past this many (a quarter of `--max-memory` in decoded pictures, at
    /// most 300) are counted on: a cut lies within a GOP of its keyframe, and x264's longest by
    /// default is 250 frames.
    private var heldLeadLimit: Int {
        min(300, options.limits.picturesInMemory(of: demuxer.info.decodedPictureBytes) / 4)
    }

    private func releaseLead() {
        for var held in heldLead as [UnsafeMutablePointer<AVFrame>?] { av_frame_free(&held) }
        heldLead = []
    }

    /// Converts the candidate frame once and queues it for each output place it fills.
    private func emit(nextTime: Double?, clipEnd: Double?, sequence: inout FrameOutput) throws {
        guard let candidate else { return }
        let places = sampler.emissions(candidateTime: candidateTime, nextTime: nextTime, clipEnd: clipEnd)
        guard !places.isEmpty else { return }
        sequence.recording?.keep(candidate, at: places, sourceTime: candidateTime)
        if sequence.consumerStopped {
            // Decoding on for the recording only: no picture is made.
            if !sequence.passOver(places) { stopped = true }
            return
        }
        let image = try scaler.uprightImage(from: candidate, info: demuxer.info, size: options.size)
        if !sequence.push(image, at: places, sourceTime: candidateTime) { stopped = true }
    }
}
