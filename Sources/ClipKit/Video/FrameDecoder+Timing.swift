// FrameDecoder's clock and seeks: frame times, the clip's end, the frames not worth decoding, moving the demuxer.
@_weakLinked import CFFmpeg
import Foundation

extension FrameDecoder {
    /// Seconds from the stream start; frames without a timestamp continue from the last one, by
    /// their own duration when they have one. (By the step between the last two: H.264 in an
    /// MPEG-PS with a timestamp on one PES in 20, 25 fps, stepped from 0.88 s to the next
    /// timestamp at 1.08 s, and every untimed frame after was placed 0.2 s on: the GIF of 3 s
    /// ran 9.7 s.)
    func presentationTime(of frame: UnsafeMutablePointer<AVFrame>) -> Double {
        let pts = frame.pointee.best_effort_timestamp
        guard pts != ck_av_nopts_value() else {
            let own = Double(ck_frame_duration(frame)) * timeBase
            let step = own > 0 ? own : lastDelta > 0 ? lastDelta : 1 / (demuxer.info.frameRate ?? 25)
            return (lastTime ?? -step) + step
        }
        return Double(pts - (origin ?? 0)) * timeBase
    }

    /// A warning when the file ends well before the length its header states: the frames end
    /// at `end` (seconds from the clip's start), and no packet of any stream reaches further.
    /// A file cut short (a download or copy that stopped: the MP4 index or Matroska header
    /// still counts the whole clip) gives a shorter GIF, as ffmpeg's decode does, and says so,
    /// as ffmpeg logs its "partial file" and "File ended prematurely". Only where the last pass
    /// read on to the end of the file, the range asked for runs past the frames, and the
    /// shortfall is over half a second and 3% of the length: a header that counts a last frame
    /// differently, or audio longer than the video (whose packets reach its length), says
    /// nothing (`Demuxer.shortfall`). A YUV4MPEG or Ogg file, which states no length, says so
    /// when it ends inside a picture or page (`Demuxer.cutTailWarning`), a Matroska file when its
    /// demuxer met the end inside an element (`Demuxer.endedInsideElementWarning`).
    func endsShort(at end: Double) -> String? {
        guard readToEnd, !stopped else { return nil }
        if let cut = demuxer.cutTailWarning { return cut }
        guard let short = demuxer.shortfall(from: Double(origin ?? 0) * timeBase, reached: end, wanted: options.end) else {
            return demuxer.endedInsideElementWarning
        }
        return String(format: "the frames end at %.3fs, short of the %.3fs the header states: the file may be cut short", end, short.stated)
    }

    /// Where the last frame stops being shown: its time plus one frame, or the stream duration
    /// when that agrees.
    /// The most a decoder timing pictures by the packet it is decoding can lag, in the stream's
    /// ticks (`DecodeOrderTimes`): the pictures it holds back for reordering, at the nominal
    /// rate (25 fps without one).
    func longestDecoderDelay(_ codec: UnsafeMutablePointer<AVCodecContext>) -> Int64 {
        guard timeBase > 0 else { return 0 }
        let interval = 1 / (demuxer.info.frameRate ?? 25)
        return Int64((Double(max(codec.pointee.has_b_frames, 0)) * interval / timeBase).rounded(.up))
    }

    func clipEnd() -> Double {
        guard let lastTime else { return 0 }
        let step = lastDelta > 0 ? lastDelta : 1 / (demuxer.info.frameRate ?? 25)
        let byFrames = lastTime + step
        // A single picture (a title card, a still over audio) is shown for the whole clip, unless
        // the file's packets end well short of it: a file cut after its first frame (a Matroska
        // file cut at 10% gave a 2 s GIF of its one frame, and no word of the cut). Decoding
        // keyframes only, one picture says nothing of the others: the clip's length stands.
        if decoded == 1, let whole = [demuxer.info.duration, demuxer.containerDuration].compactMap({ $0 }).max(),
           whole > lastTime,
           options.keyframesOnly || !(readToEnd && !stopped && demuxer.shortfall(from: Double(origin ?? 0) * timeBase, reached: byFrames) != nil) {
            return whole
        }
        // A header that gives the last frame no real duration stops at the last timestamp
        // (frames without durations, Matroska's time base tick as default duration): the last
        // frame then lasts as long as the one before it.
        if let duration = demuxer.videoDuration, duration > lastTime, duration < lastTime + 4 * step,
           StreamTiming.isFrameDuration(duration - lastTime, shortestInterval: shortestDelta ?? step) {
            return duration
        }
        // No duration of the video's own in the header (an animated PNG, whose frames each carry
        // their delay; Matroska with audio): the last frame's own, when it has a real one (the
        // APNG fixture's last frame is shown 400 ms after frames 100, 200 and 300 ms apart; the
        // interval before it gave 300).
        if demuxer.videoDuration == nil, lastDuration > 0,
           StreamTiming.isFrameDuration(lastDuration, shortestInterval: shortestDelta ?? step) {
            return lastTime + lastDuration
        }
        // A header that stops at the last timestamp: the last frame's own duration, when it has a
        // real one. The gap before it is between the frames decoded, and with B-frames skipped
        // between ticks that is two frames or more (H.264 in NUT at 30 fps sampled at 10: a
        // 2.03 s GIF ending in a 3 cs frame, where the full decode ends at 2.00 s).
        if lastDuration > 0, lastDuration < step,
           StreamTiming.isFrameDuration(lastDuration, shortestInterval: shortestDelta ?? step) {
            return lastTime + lastDuration
        }
        // No duration of its own, and the container states where the clip ends: there, when
        // that is within the gap before the frame (`StreamTiming.statedEnd`).
        if let stated = StreamTiming.statedEnd(lastStart: lastTime, gap: step, shortestInterval: shortestDelta ?? step,
                                               stated: demuxer.containerDuration) {
            return stated
        }
        return byFrames
    }

    /// Non-reference frames that cannot be on screen at any tick are not decoded at all, judged
    /// by their packets' timestamps while every packet of the stream has one. AVI gives only some
    /// packets a timestamp, and those in decode order (an Xvid/DivX packet may hold a P and a
    /// B picture, shown later): once a packet comes without one, every frame is decoded, so the
    /// frames are timed as a full decode times them (it skipped pictures that were on screen and
    /// held others, 300 ms in a 10 fps GIF of a 25 fps clip).
    ///
    /// A frame is on screen until the next one in presentation order, which is no later than the
    /// earliest later timestamp read so far (a B-frame's references come before it in decode
    /// order): that bounds how long it can last, never too short. (The packet's own duration
    /// did: rounded to the time base, Matroska's and a 1000 Hz MP4 track's milliseconds, it
    /// gave 29.97 fps frames 33 ms where they are 33 and 34 ms apart, and the frame on screen at
    /// 0.5 s, from 0.467 to 0.501, was skipped for the one before it.) With no later timestamp
    /// read, the frame is decoded. A packet an edit list leaves out (`AV_PKT_FLAG_DISCARD`:
    /// decoded as a reference, never shown) ends no frame: at the join of a two-segment edit
    /// list, the first segment's last frame (0.96 s) was judged over at 1.00 s by a left-out
    /// frame's time, skipped, and the 1.0 s tick showed the frame before it.
    func skipIfUnneeded(_ packet: AVPacket, codec: UnsafeMutablePointer<AVCodecContext>) {
        if packet.pts == ck_av_nopts_value() { packetsTimed = false }
        var needed = true
        if packetsTimed {
            let time = Double(packet.pts - (origin ?? 0)) * timeBase
            if let next = laterTimestamps.earliest(after: packet.pts) {
                needed = sampler.isNeeded(time: time, duration: Double(next - packet.pts) * timeBase)
            }
            if packet.flags & AV_PKT_FLAG_DISCARD == 0 { laterTimestamps.note(packet.pts) }
        }
        codec.pointee.skip_frame = needed ? AVDISCARD_DEFAULT : AVDISCARD_NONREF
    }

    /// Moves the demuxer to `point` and empties the decoder. False when the demuxer cannot;
    /// throws when the file cannot be opened again.
    func seek(to point: SeekPlan.Point) throws -> Bool {
        let format = demuxer.format
        switch point {
        case .beginning:
            // The first pass from the beginning needs no seek; a later one rewinds.
            guard demuxerMoved else { return true }
            // In MPEG-TS/PS and raw streams byte 0 is the beginning, and a timestamp seek there can
            // land on a later keyframe; MP4, Matroska and the like seek to their first timestamp.
            let origin = self.origin ?? 0
            let flags = format.pointee.iformat.pointee.flags
            let byBytes = flags & (AVFMT_TS_DISCONT | AVFMT_NOTIMESTAMPS) != 0
            // A file whose index lists no keyframe at its start (the first packets undecodable)
            // is rewound to its first packet all the same, as opening it again would.
            if !(byBytes && av_seek_frame(format, -1, 0, AVSEEK_FLAG_BYTE) >= 0)
                && avformat_seek_file(format, demuxer.streamIndex, Int64.min, origin, origin, 0) < 0
                && av_seek_frame(format, demuxer.streamIndex, origin, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY) < 0 {
                // A raw stream without timestamps or index may refuse both: rewind the bytes
                // themselves, as reopening the file would.
                guard Demuxer.rewindBytes(format, seekFirst: false) else { return false }
            }
        case .before(let seconds):
            demuxerMoved = true
            // Timestamps that jump (MPEG-TS joined from parts) say nothing of where a time is.
            guard timeBase > 0, !demuxer.timestampsJump else { return false }
            let ticks = seconds / timeBase
            // A start beyond any timestamp cannot be sought to; decoding then finds it past the end.
            guard ticks < 4e18 else { return false }
            if av_seek_frame(format, demuxer.streamIndex, (origin ?? 0) &+ Int64(ticks), AVSEEK_FLAG_BACKWARD) < 0 { return false }
        case .reopened:
            try demuxer.reopen()
        }
        avcodec_flush_buffers(codec)
        // Every packet sent before the first move is decoded now, and what it logged is in;
        // after it, landings mid-GOP log damage that is expected.
        try checkLoggedDamage()
        watchesLog = false
        demuxer.restartTimestamps()
        decodeOrder.restart()
        palette?.seeked()
        laterTimestamps = RecentTimestamps()
        return true
    }
}
