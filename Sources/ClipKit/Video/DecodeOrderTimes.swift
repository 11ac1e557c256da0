// H.264/HEVC in AVI: packets timed only in decode order; each picture the decoder gives takes the next of those times.
@_weakLinked import CFFmpeg

/// AVI times its packets by their place in the file (decode order) and gives H.264 and HEVC
/// packets no presentation time. The decoder then times a picture by the packet that was being
/// decoded when it came out, which with B-frames is that many packets later (`has_b_frames`):
/// a 25 fps clip with 2 B-frames started 80 ms late (the first picture held for 120 ms), and
/// its last two pictures, which come out at the flush, had no time at all (the GIF ran 80 ms
/// over). Each packet stands for one picture, shown in the decoder's order, so the pictures take
/// the packets' decode times in turn: the smallest not yet taken.
///
/// Only H.264 and HEVC: MPEG-4 Part 2 in AVI gives its B-frames presentation times, and Xvid's
/// packed bitstream holds two pictures in one packet. Empty packets (a frame AVI dropped: the
/// picture before stays on screen) give no picture and no time. A packet with a presentation
/// time turns this off for the rest of the stream.
struct DecodeOrderTimes {
    /// The decode times of the packets sent whose pictures have not come out, oldest first
    /// (decode times only rise); at most `limit`: a decoder that drops pictures lets them go.
    private var pending: [Int64] = []
    private var active: Bool
    static let limit = 64

    init(codec: AVCodecID) {
        active = codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC
    }

    /// Notes a packet of the stream sent to the decoder.
    mutating func sent(_ packet: AVPacket) {
        guard active else { return }
        if packet.pts != ck_av_nopts_value() {
            active = false
            pending = []
            return
        }
        guard packet.dts != ck_av_nopts_value(), packet.size > 0 else { return }
        if let last = pending.last, packet.dts <= last { return }
        pending.append(packet.dts)
        if pending.count > Self.limit { pending.removeFirst(pending.count - Self.limit) }
    }

    /// Gives `frame` the next decode time when the decoder had no presentation time for it.
    mutating func time(_ frame: UnsafeMutablePointer<AVFrame>) {
        guard active, frame.pointee.pts == ck_av_nopts_value(), !pending.isEmpty else { return }
        frame.pointee.best_effort_timestamp = pending.removeFirst()
    }

    /// After a seek: the pictures of the packets before it will not come out.
    mutating func restart() {
        pending = []
    }
}
