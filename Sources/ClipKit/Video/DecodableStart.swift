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

    /// The timestamp (in the stream's time base) of the first frame the decoder gives from the
    /// beginning of `format`'s stream `index`, when the first packet is not a keyframe and that
    /// frame comes after `start`; nil otherwise, or when no frame comes within `packetLimit`
    /// packets. Leaves the demuxer at its first packet again (false in `rewound` when it could
    /// not be moved back: the caller opens the file again).
    static func find(format: UnsafeMutablePointer<AVFormatContext>, index: Int32, decoder: UnsafePointer<AVCodec>,
                     start: Int64, deadline: Deadline, path: String, rewound: inout Bool) -> Int64? {
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
            if avcodec_send_packet(codec, packet) < 0 { continue }
            if let time = firstFrame(codec, frame) { return time > start ? time : nil }
        }
        guard let codec = context?.pointer else { return nil }
        avcodec_send_packet(codec, nil)
        return firstFrame(codec, frame).flatMap { $0 > start ? $0 : nil }
    }

    /// A frame's timestamp, when the decoder has one ready.
    private static func firstFrame(_ codec: UnsafeMutablePointer<AVCodecContext>, _ frame: UnsafeMutablePointer<AVFrame>) -> Int64? {
        guard avcodec_receive_frame(codec, frame) >= 0 else { return nil }
        defer { av_frame_unref(frame) }
        let time = frame.pointee.best_effort_timestamp
        return time == ck_av_nopts_value() ? nil : time
    }

    /// A one-thread decoder for the stream (its first frame is all that is wanted).
    private static func open(_ decoder: UnsafePointer<AVCodec>, format: UnsafeMutablePointer<AVFormatContext>, index: Int32,
                             path: String) -> CodecContext? {
        guard let stream = format.pointee.streams[Int(index)] else { return nil }
        return CodecContext.oneThreadDecoder(decoder, for: stream, path: path)
    }
}
