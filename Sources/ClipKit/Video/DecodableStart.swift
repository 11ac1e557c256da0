// Where a stream cut between keyframes can first be shown: the first frame its decoder gives from the beginning.
@_weakLinked import CFFmpeg
import Foundation

/// An MPEG-TS or MPEG-PS file, or a raw stream, can begin anywhere: a recording started
/// mid-broadcast, or a cut made with `tail -c`, begins with packets that need the GOP before
/// them, which is not in the file, so no decoder shows them. Its clip starts at the first
/// frame the decoder gives, as ffmpeg's output does. (Timed from the stream's first timestamp,
/// that frame was held over the undecodable lead: a TS cut a third of the way into a 4 s GOP
/// gave a GIF of 3.84 s opening on a 1.9 s freeze, where `ffmpeg -vf fps=10` gives 2.0 s.)
///
/// Decoding is needed only when the stream's first packet is not a keyframe; a file that starts
/// on one, as nearly every file does, costs one packet read. The file is rewound by bytes after,
/// as a rewind of such a file always is.
enum DecodableStart {
    /// Packets decoded at most while looking for the first frame.
    static let packetLimit = 2000

    /// Formats whose files can begin between keyframes, and whose byte 0 is their beginning.
    static let formats: Set<String> = ["mpegts", "mpegtsraw", "mpeg", "mpegvideo", "h264", "hevc"]

    /// Whether files of `format` can begin between keyframes.
    static func applies(to format: AVInputFormat) -> Bool {
        formats.contains(String(cString: format.name)) && format.flags & AVFMT_NO_BYTE_SEEK == 0
    }

    /// Where the decode of a stream that begins between keyframes starts: the first frame shown,
    /// and the key packet the decoder began the picture from (the same picture as a rule; in a
    /// stream refreshed without keyframes, x264's `intra-refresh`, the recovery point a second
    /// or two before it, whose packets the decoder needs though it shows none of them).
    struct Start: Equatable {
        /// The first frame's timestamp (in the stream's time base).
        var shown: Int64
        /// The timestamp of the last key packet sent up to the frame's own packet; nil when none had one.
        var decodedFrom: Int64?
    }

    /// The first frame the decoder gives cleanly from the beginning of `format`'s stream
    /// `index` (`isClean`), when the first packet is not a keyframe and that frame comes after
    /// `start`; nil otherwise, or when no frame comes within `packetLimit` packets. Leaves the
    /// demuxer at its first packet again (false in `rewound` when it could not be moved back:
    /// the caller opens the file again).
    static func find(format: UnsafeMutablePointer<AVFormatContext>, index: Int32, decoder: UnsafePointer<AVCodec>,
                     start: Int64, deadline: Deadline, path: String, rewound: inout Bool) -> Start? {
        guard applies(to: format.pointee.iformat.pointee), start != ck_av_nopts_value() else { return nil }
        var packet = av_packet_alloc(), frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
            // As `FrameDecoder.seek(to: .beginning)` rewinds such a file.
            rewound = Demuxer.rewindBytes(format)
        }
        guard let packet, let frame else { return nil }
        var context: CodecContext?
        var sent = 0
        // The packets sent, in order: their timestamps, and whether each was flagged key.
        var sentPackets: [(pts: Int64, isKey: Bool)] = []
        // The last key packet sent at or before the shown frame's own packet (with B-frames the
        // frame comes out after later packets, a next recovery point's among them: decoded from
        // that one, the stream lost a whole refresh), else the first key packet sent.
        func found(_ time: Int64) -> Start? {
            guard time > start else { return nil }
            let own = sentPackets.firstIndex { $0.pts == time } ?? sentPackets.count - 1
            let upToOwn = own >= 0 ? sentPackets[...own] : []
            let key = upToOwn.last { $0.isKey } ?? sentPackets.first { $0.isKey }
            return Start(shown: time, decodedFrom: key?.pts)
        }
        while sent < packetLimit, !deadline.hasPassed, av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == index else { continue }
            if context == nil {
                // The first packet: a keyframe needs no look (the frame it gives is the first).
                guard packet.pointee.flags & AV_PKT_FLAG_KEY == 0, let opened = open(decoder, format: format, index: index, path: path) else {
                    return nil
                }
                context = opened
            }
            guard let codec = context?.pointer else { return nil }
            sent += 1
            if packet.pointee.pts != ck_av_nopts_value() {
                sentPackets.append((packet.pointee.pts, packet.pointee.flags & AV_PKT_FLAG_KEY != 0))
            }
            if avcodec_send_packet(codec, packet) < 0 { continue }
            if let time = firstFrame(codec, frame) { return found(time) }
        }
        guard let codec = context?.pointer else { return nil }
        avcodec_send_packet(codec, nil)
        return firstFrame(codec, frame).flatMap(found)
    }

    /// Whether a frame decoded from the middle of a stream can be shown: an intra picture (the
    /// decoder's key frame, an I picture), or any picture H.264's decoder gives, which holds
    /// back what it has not recovered (from an IDR, an I picture, or a recovery point's
    /// refresh). HEVC's decoder gives the pictures after a cut from references it makes up, flat
    /// grey (a TS cut 0.08 s before a CRA opened on a grey P picture), so those wait for a key frame.
    static func isClean(_ frame: AVFrame, codec: AVCodecID) -> Bool {
        frame.key_frame != 0 || frame.pict_type == AV_PICTURE_TYPE_I || codec == AV_CODEC_ID_H264
    }

    /// The timestamp of the next clean frame the decoder has ready (`isClean`), passing over
    /// others; nil when it has none.
    private static func firstFrame(_ codec: UnsafeMutablePointer<AVCodecContext>, _ frame: UnsafeMutablePointer<AVFrame>) -> Int64? {
        while avcodec_receive_frame(codec, frame) >= 0 {
            defer { av_frame_unref(frame) }
            guard isClean(frame.pointee, codec: codec.pointee.codec_id) else { continue }
            let time = frame.pointee.best_effort_timestamp
            return time == ck_av_nopts_value() ? nil : time
        }
        return nil
    }

    /// A one-thread decoder for the stream (its first frame is all that is wanted).
    private static func open(_ decoder: UnsafePointer<AVCodec>, format: UnsafeMutablePointer<AVFormatContext>, index: Int32,
                             path: String) -> CodecContext? {
        guard let stream = format.pointee.streams[Int(index)] else { return nil }
        return CodecContext.oneThreadDecoder(decoder, for: stream, path: path)
    }
}
