// Timestamps that jump in formats made to be joined (MPEG-TS/PS): the packets' times made continuous, as ffmpeg makes them.
@_weakLinked import CFFmpeg
import Foundation

/// MPEG-TS and MPEG-PS files are often joined as they are (`cat a.ts b.ts`, a recorder that
/// restarts its clock, a broadcast spliced from two sources): the second part's timestamps
/// start again, back near zero or far ahead. Played by those timestamps, a clip of two 2 s
/// parts, the second timed from 1000 s, was a GIF of 1,001.9 s (one frame held for 16 minutes);
/// two copies of one 2 s file were a 2 s GIF, the second copy's frames dropped as late. ffmpeg
/// makes the times continuous for the formats that declare such jumps (`AVFMT_TS_DISCONT`): a
/// decode timestamp more than 10 s away from where the last packet ended, or more than 0.1 s
/// before it, starts a new part that follows on from the last (fftools' discontinuity
/// detection, with its `-dts_delta_threshold` of 10 s). This does the same for the video
/// stream's packets, as they are read; a jump under 10 s ahead stays a gap in the clip.
///
/// Seeking by timestamp means nothing in such a file: `Demuxer` reads the whole stream once
/// when it opens one of these formats (`scan`), and when the timestamps jump it gives the
/// clip's length from the continuous times, and seeks there decode from the beginning.
struct TimestampJumps {
    /// A decode timestamp this far from where the last packet ended starts a new part (seconds).
    static let largestGap = 10.0
    /// A decode timestamp this far before the last one starts a new part (seconds).
    static let largestStepBack = 0.1

    /// Whether files of `format` may jump (those for which ffmpeg looks: `AVFMT_TS_DISCONT`).
    static func applies(to format: AVInputFormat) -> Bool {
        format.flags & AVFMT_TS_DISCONT != 0
    }

    private let largestGap: Int64
    private let largestStepBack: Int64
    /// Added to every timestamp of the part being read.
    private(set) var offset: Int64 = 0
    /// Whether a part started again (a jump was made continuous).
    private(set) var jumped = false
    /// Where the last packet ended (its corrected decode time plus its duration), and its decode time.
    private var expected: Int64?
    private var lastDecode: Int64?
    /// A packet's length where it gives none: the step between the last two decode times.
    private var step: Int64

    /// For a stream of time base `timeBase` seconds and nominal rate `frameRate` (25 when unknown).
    init(timeBase: Double, frameRate: Double?) {
        let ticks = { (seconds: Double) -> Int64 in timeBase > 0 ? Int64((seconds / timeBase).rounded()) : 0 }
        largestGap = max(ticks(Self.largestGap), 1)
        largestStepBack = max(ticks(Self.largestStepBack), 1)
        step = max(ticks(1 / (frameRate ?? 25)), 1)
    }

    /// Makes `packet`'s timestamps continuous with those before it (a packet of the video stream).
    mutating func correct(_ packet: UnsafeMutablePointer<AVPacket>) {
        let none = ck_av_nopts_value()
        let raw = packet.pointee.dts != none ? packet.pointee.dts : packet.pointee.pts
        guard raw != none else { return }
        var decode = raw &+ offset
        if let expected {
            let delta = decode &- expected
            // As ffmpeg: back more than 0.1 s from where the last packet ended (a part of three
            // frames joined to itself steps back 0.04 s from the last decode time, 0.12 s from its end).
            if delta.magnitude > largestGap.magnitude || decode &+ largestStepBack < expected {
                offset = offset &- delta
                decode = expected
                jumped = true
            }
        }
        if offset != 0 {
            if packet.pointee.dts != none { packet.pointee.dts = packet.pointee.dts &+ offset }
            if packet.pointee.pts != none { packet.pointee.pts = packet.pointee.pts &+ offset }
        }
        // A presentation time that jumped where its decode time did not (libavformat estimates
        // decode times the file lacks) is no time of this part: a picture is shown a few frames
        // after it is decoded, never 10 s away.
        if packet.pointee.pts != none, packet.pointee.dts != none,
           (packet.pointee.pts &- packet.pointee.dts).magnitude > largestGap.magnitude {
            packet.pointee.pts = packet.pointee.dts
        }
        if let lastDecode, decode > lastDecode { step = decode &- lastDecode }
        lastDecode = decode
        expected = decode &+ (packet.pointee.duration > 0 ? packet.pointee.duration : step)
    }

    /// What reading the whole of a video stream found: whether its timestamps jumped, and where
    /// its last frame ends in continuous time (in the stream's time base).
    struct Scan {
        var jumped: Bool
        var end: Int64
        /// The stream's packets, and those with neither timestamp.
        var packets = 0
        var untimed = 0

        /// Most packets carry no time (an MPEG-PS that times one PES in many): the frames between
        /// the few times follow on at their own duration, and the times' gaps say nothing.
        var isMostlyUntimed: Bool { Self.isMostlyUntimed(untimed, of: packets) }

        /// The rule, for `StreamTiming.measure` too: more than half of `packets` untimed.
        static func isMostlyUntimed(_ untimed: Int, of packets: Int) -> Bool { untimed * 2 > packets }
    }

    /// Reads every packet of `format`'s stream `index` from where the demuxer is, making the
    /// times continuous: nil when there are none, or when the deadline passes first. A packet
    /// without a presentation time ends at its decode time (MPEG-PS gives only some PES one:
    /// a DVD VOB's last frames had none, and its length from them was 2.84 s of 3.0). Leaves the
    /// demuxer at the end: the caller rewinds it.
    static func scan(format: UnsafeMutablePointer<AVFormatContext>, index: Int32, frameRate: Double?,
                     deadline: Deadline) -> Scan? {
        guard let stream = format.pointee.streams[Int(index)] else { return nil }
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { return nil }
        var jumps = TimestampJumps(timeBase: stream.pointee.time_base.seconds, frameRate: frameRate)
        var end: Int64?
        var read = 0, packets = 0, untimed = 0
        while av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            read += 1
            if read % 256 == 0, deadline.hasPassed { return nil }
            guard packet.pointee.stream_index == index else { continue }
            packets += 1
            jumps.correct(packet)
            let time = packet.pointee.pts != ck_av_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            guard time != ck_av_nopts_value() else {
                untimed += 1
                continue
            }
            end = max(end ?? time, time &+ (packet.pointee.duration > 0 ? packet.pointee.duration : jumps.step))
        }
        return end.map { Scan(jumped: jumps.jumped, end: $0, packets: packets, untimed: untimed) }
    }
}
