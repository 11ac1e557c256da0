// Streams timed only in decode order (H.264/HEVC in AVI and ASF, raw MPEG-1/2 video): pictures timed from the first, not the decoder's delay.
@_weakLinked import CFFmpeg

/// AVI times its packets by their place in the file (decode order) and gives H.264 and HEVC
/// packets no presentation time, and so does ASF (WMV) as libavformat reads it; libavformat's
/// parser gives a raw MPEG-1/2 video stream decode times only. The decoder then times a picture
/// by the packet being decoded when it came out, which is as many packets later as it holds pictures back (B-frames: `has_b_frames`): a
/// 25 fps H.264 clip with 2 B-frames started 80 ms late (the first picture held for 120 ms),
/// and a raw MPEG-2 stream 40 ms late (every 10 fps tick showed the picture before the one on
/// screen). The delay is what the first picture shows: its time less the first packet's,
/// taken off every picture after (as ffmpeg's output starts at its first picture). Pictures
/// that come out at the flush have no time and follow on a frame apart. A gap in the times
/// (frames AVI dropped) stays where the decoder puts it.
///
/// Only those codecs, in AVI, ASF and raw MPEG video: MPEG-4 Part 2 in AVI gives its B-frames
/// presentation times, and Xvid's packed bitstream holds two pictures in one packet; other
/// containers time their packets. A packet with a presentation time turns this off for the
/// rest of the stream (a raw MPEG-2 stream with B-frames, whose parser times some, is left as
/// FFmpeg times it).
struct DecodeOrderTimes {
    private var active: Bool
    /// A raw MPEG-1/2 video stream: the parser times its first packets only, and the decoder's
    /// times then jump by the delay (a 3 s stream ran 3.04 s, 80 ms between its second and third
    /// pictures): its packets' presentation times are dropped, so every picture is timed alike.
    private let dropsPresentationTimes: Bool
    /// The decode time of the first packet sent since the start or a seek.
    private var firstSent: Int64?
    /// The decoder's delay, from the first picture since the start or a seek.
    private var delay: Int64?

    init(codec: AVCodecID, container: String) {
        let mpeg = [AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO].contains(codec)
        dropsPresentationTimes = container == "mpegvideo" && mpeg
        let decodeOrdered = container == "avi" || container == "asf"
        active = (decodeOrdered && (mpeg || codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC)) || dropsPresentationTimes
    }

    /// Drops a raw MPEG stream's packet presentation times (`dropsPresentationTimes`), before
    /// anything reads them.
    func prepare(_ packet: UnsafeMutablePointer<AVPacket>) {
        if dropsPresentationTimes, packet.pointee.dts != ck_av_nopts_value() { packet.pointee.pts = ck_av_nopts_value() }
    }

    /// Notes a packet of the stream sent to the decoder.
    mutating func sent(_ packet: AVPacket) {
        guard active else { return }
        if packet.pts != ck_av_nopts_value() {
            active = false
            return
        }
        if firstSent == nil, packet.dts != ck_av_nopts_value(), packet.size > 0 { firstSent = packet.dts }
    }

    /// Takes the decoder's delay off `frame`'s time, when it had no presentation time for it.
    /// `longest`: the most the delay can be, in the stream's ticks (the pictures the decoder
    /// holds back, at the nominal rate: `FrameDecoder.longestDecoderDelay`). A first picture later than that is not the
    /// first packet's: after a seek to a packet the container flags key and is none (an AVI
    /// whose index flags every H.264 frame key), the decoder gives nothing until a real
    /// keyframe, 10 s on, and that 10 s taken for the delay timed the keyframe at the target:
    /// `thumb --at 0.5` showed frame 250.
    mutating func time(_ frame: UnsafeMutablePointer<AVFrame>, longest: Int64) {
        guard active, frame.pointee.pts == ck_av_nopts_value() else { return }
        let time = frame.pointee.best_effort_timestamp
        guard time != ck_av_nopts_value() else { return }
        if delay == nil, let firstSent { delay = min(max(time - firstSent, 0), max(longest, 0)) }
        frame.pointee.best_effort_timestamp = time - (delay ?? 0)
    }

    /// After a seek: the delay is measured again from the first picture after it.
    mutating func restart() {
        firstSent = nil
        delay = nil
    }
}
