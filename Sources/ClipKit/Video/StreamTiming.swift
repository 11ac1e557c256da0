// Measures a video stream's real timing from its packets' timestamps, without decoding.
@_weakLinked import CFFmpeg
import Foundation

/// Frame count and frame rate as the timestamps say, which may differ from the headers.
public struct StreamTiming: Sendable, Equatable {
    public var frameCount: Int
    /// Frames per second from the first to the last timestamp; nil with fewer than two frames.
    public var measuredFrameRate: Double?
    /// True when the gaps between frames differ by more than 5% (variable frame rate), beyond
    /// the rounding of the container's timestamps (milliseconds in Matroska and WebM).
    public var isVariableFrameRate: Bool
    /// From the first timestamp to the end of the last frame, in seconds: the length when the
    /// header has none or an open-ended one. Nil without timestamps. A last frame without a
    /// duration of its own (Matroska without block durations, or with the time base's tick as
    /// default duration) lasts as long as the frame before it, as ffmpeg's guess and players have it.
    public var duration: Double?
    /// From the first timestamp to the last frame's; the gap before that frame and the smallest
    /// gap between frames (nil with one frame).
    var lastFrameStart: Double?
    var lastInterval: Double?
    var shortestInterval: Double?
    /// When the file's data ends well before the length its header states (`Demuxer.shortfall`):
    /// that length and where the packets of any stream end, from the first timestamp.
    var shortfall: Demuxer.Shortfall?

    /// A warning when the file's data ends well before the length its header states (cut
    /// short, or a header that overstates), or a file of a format that states no length ends
    /// inside a picture or page (`Demuxer.cutTailWarning`).
    public var warnings: [String] {
        if let cutTail { return [cutTail] }
        guard let shortfall else { return endedEarly.map { [$0] } ?? [] }
        return [String(format: "the packets end at %.3fs, short of the %.3fs the header states: the file may be cut short",
                       shortfall.reach, shortfall.stated)]
    }
    /// A Matroska file whose reading ended inside an element (`Demuxer.endedInsideElementWarning`),
    /// said when there is no shortfall to say it with.
    var endedEarly: String?
    /// A YUV4MPEG file cut inside a picture, an Ogg file inside a page (`Demuxer.cutTailWarning`).
    var cutTail: String?

    /// The clip's length: `header` (the container's), unless it gives the last frame no real
    /// duration (`isFrameDuration`: a header that stops at the last timestamp), then `duration`.
    public func duration(header: Double?) -> Double? {
        guard let header else { return duration }
        if let start = lastFrameStart, let shortest = shortestInterval, let duration,
           !Self.isFrameDuration(header - start, shortestInterval: shortest), duration > header {
            return duration
        }
        return header
    }

    /// The video's length (`info` gives it): `duration(header:)`, except where the header's is
    /// the container's and may be the audio's (`VideoInfo.lengthMayRunPastVideo`) and the
    /// file is whole: then the frames' own, shorter one. (A Matroska file with 1 s of video and
    /// 3 s of audio said 3.000 s; its GIF is 1 s.)
    public func videoLength(of info: VideoInfo) -> Double? {
        let length = duration(header: info.duration)
        if info.lengthMayRunPastVideo, shortfall == nil, let duration, let length, duration < length { return duration }
        return length
    }

    /// The clip's length for planning what to decode (tile times, `--at` percentages, the
    /// picker's span): the header's, measured from the timestamps (`duration(header:)`, as `info`
    /// gives it) when the header has none or the stream starts before zero. (A WebM from -1.3 s
    /// whose header says 2.7 s, where its frames span 4 s: its storyboard ended at 2.7 s, and
    /// the last 1.3 s of frames were in no cue.)
    /// Where the header's length is the container's and may run on past the last frame to the
    /// end of the audio (`VideoInfo.lengthMayRunPastVideo`), the video's own, read from the
    /// file's tail (`Demuxer.measuredVideoLength`): `--at 100%` of a WebM whose audio ran 0.2 s
    /// longer asked for a time past the frames, and said the file may be cut short.
    static func clipDuration(of url: URL, info: VideoInfo, limits: Limits) throws -> Double? {
        if info.lengthMayRunPastVideo, !info.startsBeforeZero, let header = info.duration {
            let demuxer = try Demuxer(url: url, maxPixels: limits.maxPixels, maxMemory: limits.maxMemory, deadline: limits.deadline,
                                      fullProbe: false)
            return try demuxer.measuredVideoLength().map { min($0, header) } ?? header
        }
        guard info.duration == nil || info.startsBeforeZero else { return info.duration }
        return try measure(url, limits: limits).duration(header: info.duration)
    }

    /// Whether `seconds` can be how long a frame is shown: at least half the shortest interval
    /// between frames. Less is no duration (0), or the time base's tick that ffmpeg's Matroska
    /// muxer writes as default duration (8 ms at 1/120 s), not the frame's.
    static func isFrameDuration(_ seconds: Double, shortestInterval: Double) -> Bool {
        seconds >= shortestInterval / 2 - 1e-9
    }

    /// Where a last frame that has no duration of its own ends by the container's word: the
    /// length it states (`stated`, from the first timestamp), when that falls after the frame's
    /// start by a frame's duration at least and by less than the gap before it (`gap`), which
    /// is what the frame is given otherwise. QuickTime's 600 Hz tracks (iPhone and QuickTime
    /// screen recordings) give every packet one tick: a recording whose last frame, written at
    /// stop, came 4 s after the one before it ran 4 s past the 15.04 s its header and ffmpeg give.
    static func statedEnd(lastStart: Double, gap: Double, shortestInterval: Double, stated: Double?) -> Double? {
        guard let stated, stated > lastStart, stated - lastStart < gap,
              isFrameDuration(stated - lastStart, shortestInterval: shortestInterval) else { return nil }
        return stated
    }

    /// Reads every packet of the video stream of `url` (no decoding), within `limits`' deadline.
    public static func measure(_ url: URL, limits: Limits = Limits()) throws -> StreamTiming {
        let demuxer = try Demuxer(url: url, maxPixels: limits.maxPixels, maxMemory: limits.maxMemory, deadline: limits.deadline)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw ClipKitError.internalFailure(path: url.path, reason: "out of memory") }
        let timeBase = demuxer.stream.pointee.time_base.seconds
        // Presentation timestamps, or decode timestamps where some packets have none but all
        // have those (AVI times its packets in decode order and gives only some a presentation
        // time: those alone measured 8 to 17 fps on 25 fps Xvid and MPEG-4 clips).
        /// One kind of timestamp: the times read, where the last frame ends, and how many packets lacked one.
        struct Stamps {
            var times: [Double] = []
            var end = -Double.infinity
            var untimed = 0
            var missing: Bool { untimed > 0 }
            mutating func add(_ stamp: Int64, duration: Double, timeBase: Double) {
                guard stamp != ck_av_nopts_value() else { untimed += 1; return }
                let time = Double(stamp) * timeBase
                times.append(time)
                end = max(end, time + duration)
            }
        }
        var presentation = Stamps(), decode = Stamps()
        var count = 0
        while demuxer.read(packet) >= 0 {
            try limits.checkDeadline(url.path)
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == demuxer.streamIndex else { continue }
            count += 1
            // Pictures an MP4/MOV edit list cuts off (before its start, as `-ss -c copy` leaves
            // them) are decoded as references only, never shown: their times are no part of the
            // clip (they made a 2.7 s cut 4.0 s long).
            if packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0 { continue }
            // So are the undecodable packets of a file that begins between keyframes.
            if let start = demuxer.undecodableBefore, packet.pointee.pts != ck_av_nopts_value(), packet.pointee.pts < start {
                count -= 1
                continue
            }
            let duration = Double(max(packet.pointee.duration, 0)) * timeBase
            presentation.add(packet.pointee.pts, duration: duration, timeBase: timeBase)
            decode.add(packet.pointee.dts, duration: duration, timeBase: timeBase)
        }
        try limits.checkDeadline(url.path)
        let used = presentation.missing && !decode.missing && decode.times.count > presentation.times.count ? decode : presentation
        var times = used.times
        let end = used.end
        times.sort()
        var rate: Double?
        var variable = false
        if times.count >= 2, let first = times.first, let last = times.last, last > first {
            rate = Double(times.count - 1) / (last - first)
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
            // 33 ms and 34 ms gaps are 30 fps in a millisecond time base, not a variable rate.
            let rounding = max(timeBase, 0.001) * 1.5
            if let small = gaps.min(), let large = gaps.max() { variable = large - small > max(small * 0.05, rounding) + 1e-9 }
        }
        // Most frames with neither timestamp (an MPEG-PS that times one PES in many): they are
        // decoded at their own duration, one frame of the nominal rate each
        // (`FrameDecoder.presentationTime`), and the gaps between the few times are no frame's.
        // (The gap before the last time, 1.2 s, was taken for the last frame's: 300 frames at
        // 25 fps measured 12.88 s and 0.77 fps, where they decode to 12.0 s.)
        if TimestampJumps.Scan.isMostlyUntimed(presentation.untimed, of: count), TimestampJumps.Scan.isMostlyUntimed(decode.untimed, of: count),
           count > 0, let nominal = demuxer.info.frameRate {
            // (Measured from no time at all, a raw stream's rate is not measured.)
            return StreamTiming(frameCount: count, measuredFrameRate: times.isEmpty ? nil : nominal, isVariableFrameRate: false,
                                duration: Double(count) / nominal)
        }
        var duration = times.first.map { max(end, times.last!) - $0 }
        var timing = StreamTiming(frameCount: count, measuredFrameRate: rate, isVariableFrameRate: variable, duration: nil)
        if let first = times.first, let last = times.last {
            timing.lastFrameStart = last - first
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
            timing.shortestInterval = gaps.min()
            if let before = times.dropLast().last, last > before, let shortest = gaps.min(),
               !isFrameDuration(max(end - last, 0), shortestInterval: shortest) {
                timing.lastInterval = last - before
                duration = statedEnd(lastStart: last - first, gap: last - before, shortestInterval: shortest, stated: demuxer.containerDuration)
                    ?? last - first + (last - before)
            }
        }
        // A raw stream without any timestamp (Annex B H.264 or HEVC): its frames at the nominal
        // rate, as the decoder times them (`FrameDecoder.presentationTime`). Without this a
        // storyboard of a 3 s stream was one tile with a 1 ms cue, and `--at 50%` was refused.
        if times.isEmpty, count > 0, presentation.missing, decode.missing, let nominal = demuxer.info.frameRate {
            timing.duration = Double(count) / nominal
            return timing
        }
        timing.duration = duration
        if let first = times.first { timing.shortfall = demuxer.shortfall(from: first, reached: duration ?? 0) }
        timing.cutTail = demuxer.cutTailWarning
        timing.endedEarly = demuxer.endedInsideElementWarning
        return timing
    }
}
