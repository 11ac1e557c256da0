// The pixel aspect ratio a stream's own bitstream gives, for an MP4/MOV whose headers give none.
@_weakLinked import CFFmpeg
import Foundation

/// An MP4 or MOV carries its pixel aspect ratio in a `pasp` box, which many writers leave out
/// when the codec's own headers have it (H.264's VUI, an MPEG-2 or MPEG-4 sequence header, a DV
/// frame's header): DVCPRO HD and HDV from cameras, a stream retagged by `h264_metadata`. A
/// probed open (`info`, `gif`) takes the decoder's, whatever the codec; so does this. libavformat's headers
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
    /// Pictures tried at most (one that does not decode alone is passed over), and packets read
    /// at most while looking for them.
    static let pictureLimit = 3
    static let packetLimit = 256

    /// The pixel aspect ratio of the first picture the decoder gives from stream `index` of the
    /// file at `path`, or nil when none comes, or it says none. Each picture is decoded alone (its
    /// packet, then a drain): a decoder that holds pictures back for reordering gives the first
    /// only after several more, and decoding those took 0.6 s on a noisy 1080p clip.
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
        var read = 0, tried = 0
        while tried < pictureLimit, read < packetLimit, !deadline.hasPassed, av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            read += 1
            guard packet.pointee.stream_index == index else { continue }
            tried += 1
            guard avcodec_send_packet(context.pointer, packet) >= 0 else { continue }
            avcodec_send_packet(context.pointer, nil)
            if avcodec_receive_frame(context.pointer, frame) >= 0 {
                defer { av_frame_unref(frame) }
                return Demuxer.plausibleAspect(frame.pointee.sample_aspect_ratio)
            }
            avcodec_flush_buffers(context.pointer)
        }
        return nil
    }
}
