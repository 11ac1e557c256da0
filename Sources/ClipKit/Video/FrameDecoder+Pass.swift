// One pass of FrameDecoder's demux/decode loop: packets read and sent, frames received and checked, seeks for the tick skipper.
@_weakLinked import CFFmpeg
import Foundation

extension FrameDecoder {
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
    func decodePass(from point: SeekPlan.Point, packet: UnsafeMutablePointer<AVPacket>, frame: UnsafeMutablePointer<AVFrame>,
                    into sequence: inout FrameOutput) throws -> Bool {
        let codec = self.codec
        let path = demuxer.path
        var pass = DecodePass(from: point, start: options.start, demuxerMoved: demuxerMoved, decodableStart: demuxer.decodableStart)
        readToEnd = false
        damage.restart()
        guard try seek(to: point) || !pass.mayGiveUp else { return false }
        leadOpen = origin != nil
        defer { releaseLead() }

        repeat {
            if pass.relocation != nil { try relocate(&pass) }
            while !stopped && !pass.givenUp {
                try options.limits.checkDeadline(path)
                // Only once a tick is out: until then the pass may still be given up.
                if pass.relocation == nil, sequence.pushedCount > 0, let tick = sampler.nextTickTime, skipper?.shouldJump(to: tick) == true {
                    pass.relocation = skipper?.jump(to: tick)
                }
                if pass.relocation != nil { try relocate(&pass) }
                let status = demuxer.read(packet)
                if status < 0 {
                    // The end of the file, or of a truncated one: decode what we have.
                    readToEnd = true
                    break
                }
                defer { av_packet_unref(packet) }
                guard packet.pointee.stream_index == demuxer.streamIndex else { continue }
                decodeOrder.prepare(packet)
                if options.keyframesOnly && packet.pointee.flags & AV_PKT_FLAG_KEY == 0 { continue }
                if pass.leading.isLeading(packet.pointee) { continue }
                // A file that begins between keyframes: the packets before the first frame shown
                // need a GOP it does not hold (`DecodableStart`), and would only be damage.
                if pass.lead.skips(packet.pointee) { continue }
                palette?.pass(packet)
                skipper?.noteRead(packet.pointee)
                if options.fps != nil { skipIfUnneeded(packet.pointee, codec: codec) }
                if pass.mayGiveUp && packet.pointee.pts != ck_av_nopts_value() && codec.pointee.skip_frame == AVDISCARD_DEFAULT
                    && packet.pointee.flags & AV_PKT_FLAG_DISCARD == 0 {
                    let time = Double(packet.pointee.pts - (origin ?? 0)) * timeBase
                    if time <= options.start + FrameSampler.epsilon { pass.latestSent = max(pass.latestSent ?? time, time) }
                }
                if let whole = rawPictureBytes, Int(packet.pointee.size) < whole {
                    // A raw picture cut short: the one before it stays on screen, as after a
                    // packet that fails to decode.
                    let reason = "a raw picture of \(packet.pointee.size) bytes, \(whole) needed"
                    firstPacketError = firstPacketError ?? reason
                    if pass.landing == nil { damage.rawPictureCut(reason) }
                    continue
                }
                if checksJPEGEnd, !JPEGEndMarker.isComplete(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))) {
                    // Decoded as ffmpeg decodes it (the end emulated), and said, after a seek
                    // too: every Motion JPEG picture is intra, so a landing's is the file's.
                    damage.pictureCut("a JPEG picture without its end marker")
                }
                decodeOrder.sent(packet.pointee)
                let sent = avcodec_send_packet(codec, packet)
                if sent < 0 && sent != ck_averror_eagain() {
                    firstPacketError = firstPacketError ?? ffmpegMessage(sent)
                    if pass.landing == nil {
                        try checkDamage()
                        damage.packetFailed(ffmpegMessage(sent))
                        pass.chainBroken(pushedCount: sequence.pushedCount)
                    }
                    continue
                }
                try receiveFrames(into: frame, pass: &pass, sequence: &sequence)
            }
            if pass.givenUp { return false }
            // The deadline also interrupts av_read_frame, which then looks like the end of the file.
            try options.limits.checkDeadline(path)
            if !stopped && pass.relocation == nil {
                codec.pointee.skip_frame = options.keyframesOnly ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
                avcodec_send_packet(codec, nil)
                try receiveFrames(into: frame, pass: &pass, sequence: &sequence)
            }
        } while pass.relocation != nil && !stopped
        // No frame came with a timestamp: those held are counted on.
        if leadOpen && !pass.givenUp && !stopped { _ = try takeLead(before: nil, pass: &pass, sequence: &sequence) }
        if pass.givenUp || ((pass.mayGiveUp || pass.rewound) && decoded == 0) { return false }
        if hasCandidate && pass.missesSentFrame(candidateTime: candidateTime, pushedCount: sequence.pushedCount) { return false }
        return true
    }

    /// Seeks for the skipper, dropping the candidate (no tick can show it any more); throws
    /// when not even the beginning can be sought to.
    private func relocate(_ pass: inout DecodePass) throws {
        while let point = pass.relocation {
            pass.relocation = nil
            av_frame_unref(candidate)
            hasCandidate = false
            lastTime = nil
            if try seek(to: point) {
                pass.lead = UndecodableLead(demuxer.decodableStart)
                if case .before = point {
                    pass.landing = skipper?.pendingTick
                    pass.leading = LeadingPictures(afterSeek: true)
                } else {
                    // From the beginning the untimed lead comes again.
                    releaseLead()
                    leadOpen = origin != nil
                }
                return
            }
            pass.relocation = skipper?.retryPoint()
        }
        throw ClipKitError.corrupt(path: demuxer.path, reason: "cannot seek back after skipping ahead")
    }

    /// Receives every frame the decoder has ready into `frame`, checks it (size, a seek's
    /// landing, whether the pass must be given up) and takes it, or holds it while the untimed
    /// lead is open.
    private func receiveFrames(into frame: UnsafeMutablePointer<AVFrame>, pass: inout DecodePass, sequence: inout FrameOutput) throws {
        let path = demuxer.path
        while !stopped && !pass.givenUp {
            let status = avcodec_receive_frame(codec, frame)
            if status == ck_averror_eagain() || status == ck_averror_eof() { return }
            if status < 0 {
                // A damaged frame: keep what decoded so far, as players do. Before the chain's
                // first intra picture it is expected (the landing was mid-GOP) and harmless.
                firstPacketError = firstPacketError ?? ffmpegMessage(status)
                if pass.landing == nil {
                    try checkDamage()
                    damage.packetFailed(ffmpegMessage(status))
                    pass.chainBroken(pushedCount: sequence.pushedCount)
                }
                return
            }
            decodeOrder.time(frame, longest: longestDecoderDelay(codec))
            // Headers can lie: a stream may switch to a larger size mid-way.
            try options.limits.checkPixels(width: Int(frame.pointee.width), height: Int(frame.pointee.height),
                                           what: "decoded frame", path: path)
            let time = presentationTime(of: frame)
            let damaged = frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || frame.pointee.decode_error_flags != 0
            if let target = pass.landing {
                // An untimed picture after a seek cannot be placed: it was counted from 0, and
                // shown for the target. (MPEG-PS seeks by decode time: the seek for frame 23 of
                // an MPEG-2 .mpg landed on frame 24, the last, which came out of its end code's
                // packet untimed, and `thumb --at` showed it for 0.92 s.)
                if frame.pointee.best_effort_timestamp == ck_av_nopts_value() {
                    av_frame_unref(frame)
                    pass.landingMissed(skipper: &skipper, pushedCount: sequence.pushedCount)
                    return
                }
                // After a seek only a chain that starts at a picture the decoder itself calls
                // intra is clean: containers flag P-frames as keyframes, and a decode that
                // starts mid-GOP (MPEG-TS) makes pictures from references it never had.
                let intra = frame.pointee.key_frame != 0 || frame.pointee.pict_type == AV_PICTURE_TYPE_I
                if !intra || damaged {
                    av_frame_unref(frame)
                    // Frames before the target may be passed over; one after it shows the
                    // landing missed it.
                    if time > target + FrameSampler.epsilon {
                        pass.landingMissed(skipper: &skipper, pushedCount: sequence.pushedCount)
                        return
                    }
                    continue
                }
                // A clean picture past the target is no landing either when an earlier point is
                // left to try: the seek went by the container's keyframe flags, and the decoder
                // held back every picture until a real keyframe beyond the target (an AVI whose
                // index flags every H.264 frame key: `thumb --at 0.5` showed the IDR at 10 s).
                if time > target + FrameSampler.epsilon && pass.mayGiveUp && sequence.pushedCount == 0 {
                    av_frame_unref(frame)
                    pass.landingMissed(skipper: &skipper, pushedCount: sequence.pushedCount)
                    return
                }
                pass.landing = nil
            } else if damaged {
                // The flag races the frame threads' concealment (`DecoderDamageLog`): checked only
                // where the log is not watched.
                if !watchesLog { try checkDamage() }
                damage.frameConcealed()
            }
            try checkLoggedDamage()
            decoded += 1
            if sequence.pushedCount == 0
                && ((pass.mayGiveUp && damaged) || ((pass.mayGiveUp || pass.rewound) && decoded == 1 && time > options.start + FrameSampler.epsilon)) {
                pass.givenUp = true
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
                guard try takeLead(before: timed ? time : nil, pass: &pass, sequence: &sequence) else { return }
                if !timed {
                    guard try take(frame, time: presentationTime(of: frame), damaged: damaged, pass: &pass, sequence: &sequence) else { return }
                    continue
                }
            }
            guard try take(frame, time: time, damaged: damaged, pass: &pass, sequence: &sequence) else { return }
        }
    }

    /// Makes `frame` the candidate, emitting the one before; false when the pass stops
    /// taking frames here (given up, or a relocation).
    private func take(_ frame: UnsafeMutablePointer<AVFrame>, time: Double, damaged: Bool, pass: inout DecodePass,
                      sequence: inout FrameOutput) throws -> Bool {
        if skipper?.accepts(frameTime: time, damaged: damaged) == false {
            // Skipped past the tick's frame: decode it from an earlier point.
            pass.relocation = skipper?.retryPoint()
            return false
        }
        try options.checkTimestamp(time, path: demuxer.path)
        if let last = lastTime, time > last {
            lastDelta = time - last
            shortestDelta = min(shortestDelta ?? lastDelta, lastDelta)
        }
        lastTime = time
        lastDuration = Double(max(ck_frame_duration(frame), 0)) * timeBase
        if hasCandidate && time > options.start + FrameSampler.epsilon
            && pass.missesSentFrame(candidateTime: candidateTime, pushedCount: sequence.pushedCount) {
            pass.givenUp = true
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
    private func takeLead(before firstTime: Double?, pass: inout DecodePass, sequence: inout FrameOutput) throws -> Bool {
        leadOpen = false
        let step = 1 / (demuxer.info.frameRate ?? 25)
        for (k, held) in heldLead.enumerated() {
            let time = firstTime.map { $0 - Double(heldLead.count - k) * step } ?? presentationTime(of: held)
            guard try take(held, time: time, damaged: false, pass: &pass, sequence: &sequence), !stopped else { return false }
        }
        releaseLead()
        return true
    }
}
