// The pixel aspect ratio a stream's own bitstream gives, for an MP4/MOV whose headers give none.
@_weakLinked import CFFmpeg
import Foundation

/// An MP4 or MOV carries its pixel aspect ratio in a `pasp` box, which many writers leave out
/// when the codec's own headers have it (H.264's VUI, an MPEG-2 or MPEG-4 sequence header):
/// DVCPRO HD and HDV from cameras, a stream retagged by `h264_metadata`. libavformat's headers
/// then say nothing, and only decoding finds it. An unprobed open (`thumb`, `storyboard`) took
/// such pixels as square: a 16:9 clip stored 320x240 gave a 320x240 thumbnail where `info` and
/// `gif` (probed) gave 427x240, and where ffmpeg shows 427x240.
///
/// A reader that decodes anyway takes it from the first picture it decodes (`Demuxer.adoptAspect`):
/// a thumbnail's size is fixed per picture, so it costs nothing. One that must know the size
/// before it decodes (a storyboard's tiles) has the first picture decoded at open, from a second
/// opening of the file, so the one being read is not moved: one picture more, for such files
/// only. (Decoding it for every thumbnail of a 1080p phone clip, most of which have no `pasp`,
/// took a noisy clip's thumbnail from 245 to 360 ms.)
enum BitstreamAspect {
    /// Packets read at most while looking for the first picture.
    static let packetLimit = 256

    /// Codecs whose bitstream can say the pixel aspect ratio that MP4's headers do not.
    static let codecs: Set<UInt32> = [AV_CODEC_ID_H264.rawValue, AV_CODEC_ID_HEVC.rawValue, AV_CODEC_ID_MPEG4.rawValue,
                                      AV_CODEC_ID_MPEG2VIDEO.rawValue, AV_CODEC_ID_MPEG1VIDEO.rawValue,
                                      AV_CODEC_ID_VC1.rawValue, AV_CODEC_ID_H263.rawValue]

    /// Whether a stream with `parameters` whose headers give no pixel aspect ratio, opened
    /// without probing, needs its first picture decoded for one.
    static func isNeeded(for parameters: AVCodecParameters) -> Bool {
        codecs.contains(parameters.codec_id.rawValue)
    }

    /// The pixel aspect ratio of the first picture the decoder gives from stream `index` of the
    /// file at `path`, or nil when none comes within `packetLimit` packets or it says none.
    static func find(path: String, index: Int32, decoder: UnsafePointer<AVCodec>, deadline: Deadline) -> AVRational? {
        guard let owner = try? FormatContext(path: path, deadline: deadline) else { return nil }
        let format = owner.pointer
        guard index < Int32(format.pointee.nb_streams), let stream = format.pointee.streams[Int(index)] else { return nil }
        for i in 0..<Int(format.pointee.nb_streams) where i != Int(index) {
            format.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
        guard let context = try? CodecContext(codec: decoder, path: path),
              avcodec_parameters_to_context(context.pointer, stream.pointee.codecpar) >= 0 else { return nil }
        context.pointer.pointee.pkt_timebase = stream.pointee.time_base
        context.pointer.pointee.thread_count = 1
        guard avcodec_open2(context.pointer, decoder, nil) >= 0 else { return nil }
        var packet = av_packet_alloc(), frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        guard let packet, let frame else { return nil }
        var sent = 0
        var flushed = false
        while !deadline.hasPassed {
            if avcodec_receive_frame(context.pointer, frame) >= 0 {
                defer { av_frame_unref(frame) }
                return Demuxer.plausibleAspect(frame.pointee.sample_aspect_ratio)
            }
            if flushed { return nil }
            guard sent < packetLimit, av_read_frame(format, packet) >= 0 else {
                avcodec_send_packet(context.pointer, nil)
                flushed = true
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == index else { continue }
            sent += 1
            avcodec_send_packet(context.pointer, packet)
        }
        return nil
    }
}
