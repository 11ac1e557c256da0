// The size and pixel aspect ratio of a stream's first picture, for an MP4/MOV opened without probing.
@_weakLinked import CFFmpeg
import Foundation

/// An MP4/MOV opened without probing (`thumb`, `storyboard`: its headers describe the video)
/// has only the headers' word for the picture, and the decoder may say otherwise:
/// - the pixel aspect ratio: a `pasp` box is often left out where the codec's own headers have
///   it (H.264's VUI, an MPEG-2 or MPEG-4 sequence header, a DV frame's header: DVCPRO HD and
///   HDV from cameras, a stream retagged by `h264_metadata`). Taken as square, a 16:9 clip
///   stored 320x240 gave a 320x240 thumbnail, where `info`, `gif` and ffmpeg show 427x240;
/// - the size: the sample description's is the coded size where the stream crops it (a camera's
///   1920x1088 over a 1080-line picture, an SPS that crops 192 lines to 180), or is simply
///   wrong. The thumbnail was the picture stretched to it: 320x192 for 320x180.
/// A probed open (`info`, `gif`) takes the decoder's, whatever the codec; so does this.
///
/// A reader that decodes anyway takes them from the first picture it decodes
/// (`Demuxer.adoptGeometry`): a thumbnail's size is fixed per picture, so it costs nothing. One
/// that must know the size before it decodes (a storyboard's tiles) has the first picture
/// decoded at open (`geometry`), from a second opening of the file, so the one being read is
/// not moved: one picture more. (Decoding it for every thumbnail took a noisy 1080p clip's
/// from 245 to 360 ms.)
enum FirstPicture {
    /// What the first picture says of the frames to come.
    struct Geometry {
        var width: Int
        var height: Int
        /// Nil when the picture says none.
        var aspect: AVRational?
    }

    /// Pictures tried at most (one that does not decode alone is passed over), and packets read
    /// at most while looking for them.
    static let pictureLimit = 3
    static let packetLimit = 256

    /// The geometry of the first picture the decoder gives from stream `index` of the file at
    /// `path`, or nil when none comes (or it has over `maxPixels`). Each picture is decoded alone
    /// (its packet, then a drain): a decoder that holds pictures back for reordering gives the
    /// first only after several more, and decoding those took 0.6 s on a noisy 1080p clip.
    static func geometry(path: String, index: Int32, decoder: UnsafePointer<AVCodec>, maxPixels: Int,
                         deadline: Deadline) -> Geometry? {
        guard let owner = try? FormatContext(path: path, deadline: deadline) else { return nil }
        let format = owner.pointer
        guard index < Int32(format.pointee.nb_streams), let stream = format.pointee.streams[Int(index)] else { return nil }
        for i in 0..<Int(format.pointee.nb_streams) where i != Int(index) {
            format.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
        // The headers' size was checked; the stream's may be larger: refused by the decoder.
        guard let context = CodecContext.oneThreadDecoder(decoder, for: stream, path: path, maxPixels: maxPixels) else { return nil }
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
                return geometry(of: frame)
            }
            avcodec_flush_buffers(context.pointer)
        }
        return nil
    }

    /// `frame`'s geometry, nil when it has no size.
    static func geometry(of frame: UnsafePointer<AVFrame>) -> Geometry? {
        guard frame.pointee.width > 0, frame.pointee.height > 0 else { return nil }
        return Geometry(width: Int(frame.pointee.width), height: Int(frame.pointee.height),
                        aspect: Demuxer.plausibleAspect(frame.pointee.sample_aspect_ratio))
    }
}
