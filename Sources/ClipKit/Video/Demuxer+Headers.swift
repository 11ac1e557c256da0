// What a Demuxer reads from headers before any packet: display matrices, alpha decoders, whether probing can be skipped, lengths and rates.
@_weakLinked import CFFmpeg
import Foundation

extension Demuxer {
    /// The display matrix of a stream (9 int32, 16.16 fixed point), or nil.
    static func displayMatrix(of stream: UnsafeMutablePointer<AVStream>?) -> UnsafePointer<Int32>? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 9 * 4 else { return nil }
        return UnsafeRawPointer(data).assumingMemoryBound(to: Int32.self)
    }

    /// For VP8/VP9 with an alpha channel (WebM's `alpha_mode` 1: transparent stickers, overlays),
    /// libvpx's decoder: FFmpeg's own ignores the alpha, which WebM carries beside the picture,
    /// and shows what lies under the transparent pixels. Nil otherwise, or when this FFmpeg has
    /// no libvpx (the picture is then opaque, as ffmpeg shows it without `-c:v libvpx-vp9`).
    static func alphaDecoder(for stream: AVStream) -> UnsafePointer<AVCodec>? {
        guard let tag = av_dict_get(stream.metadata, "alpha_mode", nil, 0), String(cString: tag.pointee.value) == "1" else {
            return nil
        }
        switch stream.codecpar.pointee.codec_id {
        case AV_CODEC_ID_VP9: return avcodec_find_decoder_by_name("libvpx-vp9")
        case AV_CODEC_ID_VP8: return avcodec_find_decoder_by_name("libvpx")
        default: return nil
        }
    }

    /// Whether `path` starts as an animated WebP does: RIFF, WEBP, then a VP8X chunk whose
    /// flags have the animation bit.
    static func isAnimatedWebP(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 21), head.count == 21 else { return false }
        let bytes = [UInt8](head)
        return bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
            && bytes[12..<16].elementsEqual("VP8X".utf8) && bytes[20] & 0x02 != 0
    }

    /// True when the container headers alone give a video stream's codec, size, frame rate and
    /// duration, so probing by decoding can be skipped (the pixel format then stays unknown
    /// until the first frame, which the decoder does not need).
    static func headersDescribeVideo(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        let name = String(cString: context.pointee.iformat.pointee.name)
        guard name.hasPrefix("mov,mp4") else { return false }
        var found = false
        for i in 0..<Int(context.pointee.nb_streams) {
            let stream = context.pointee.streams[i]!.pointee
            let parameters = stream.codecpar.pointee
            guard parameters.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            // A fragmented MP4 (an empty moov: no sample count) knows its start only once probed.
            guard parameters.codec_id != AV_CODEC_ID_NONE, parameters.width > 0, parameters.height > 0,
                  stream.avg_frame_rate.num > 0, stream.duration > 0, stream.nb_frames > 0,
                  stream.start_time != ck_av_nopts_value() else { return false }
            found = true
        }
        return found
    }

    /// An MP4/MOV whose samples are all in fragments (its moov lists none).
    static func isFragmentedMP4(_ context: UnsafeMutablePointer<AVFormatContext>, stream: AVStream) -> Bool {
        String(cString: context.pointee.iformat.pointee.name).hasPrefix("mov,mp4") && stream.nb_frames == 0
            && stream.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
    }

    static func name(_ text: UnsafePointer<CChar>?, unless unspecified: Bool) -> String? {
        guard !unspecified, let text else { return nil }
        return String(cString: text)
    }

    static func startsWithPNGSignature(_ path: String) -> Bool {
        guard let handle = FileSystemPath.handleForReading(path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 8)).map([UInt8].init) == PNGReader.signature
    }

    /// The clip's length from a container duration `seconds` that counts from time zero, not
    /// from the first timestamp: Matroska's segment duration (and NUT's) ends where the last
    /// frame does, so a stream from 10 hours (`-output_ts_offset 36000`) has 36,004 s for a
    /// 4 s clip, which `gif` refused as over the hour `--max-duration` allows. Less the start
    /// time for those containers when it is after zero; as it is otherwise.
    static func length(ofSegmentDuration seconds: Double, format: AVFormatContext) -> Double {
        let name = String(cString: format.iformat.pointee.name)
        guard name == "matroska,webm" || name == "nut", format.start_time != ck_av_nopts_value(), format.start_time > 0 else {
            return seconds
        }
        let start = Double(format.start_time) / Double(AV_TIME_BASE)
        return seconds > start ? seconds - start : seconds
    }

    /// Where the header says the clip ends, in seconds on the file's clock (as `packetsReach`):
    /// the video stream's start plus its own length, else the container's length counted from
    /// its start, or from zero as Matroska's segment duration counts (the earlier of the two, so
    /// a doubt says less). Nil where the header gives no length `info` takes (`info.duration`:
    /// open-ended, guessed from the bit rate, a fragmented MP4's).
    var statedEnd: Double? {
        guard info.duration != nil else { return nil }
        let video = stream.pointee, container = format.pointee
        if video.duration > 0, video.duration != ck_av_nopts_value(), video.time_base.den > 0 {
            let start = video.start_time == ck_av_nopts_value() ? 0 : video.start_time
            return (Double(start) + Double(video.duration)) * video.time_base.seconds
        }
        guard container.duration > 0, container.duration != ck_av_nopts_value() else { return nil }
        let length = Double(container.duration) / Double(AV_TIME_BASE)
        let start = container.start_time == ck_av_nopts_value() ? 0 : Double(container.start_time) / Double(AV_TIME_BASE)
        return min(start + length, length)
    }

    /// True for a header duration of 0xFFFFFFFF time-scale units (143,165 s at 30000/s): the
    /// "unknown length" that fragmented MP4 writers (MediaRecorder, live packagers) put in their
    /// headers. Such a clip's length comes from its timestamps instead.
    static func isOpenEndedDuration(_ seconds: Double) -> Bool {
        guard seconds > 3600 else { return false }
        let scale = Double(UInt32.max) / seconds
        return abs(scale - scale.rounded()) < 1e-3 && scale.rounded() >= 1
    }

    /// A frame rate, unless absent, zero or absurd (some muxers write 90000/1 or 0/0).
    static func plausibleRate(_ rate: AVRational) -> Double? {
        guard rate.num > 0, rate.den > 0 else { return nil }
        let value = Double(rate.num) / Double(rate.den)
        return value > 0.01 && value <= 1000 ? value : nil
    }

    /// `VideoInfo.decodedBytesPer64Pixels` for a pixel format's descriptor: its bits a pixel,
    /// padding included (rgb0's unused byte; chroma as subsampled), as libavutil counts them
    /// for a picture's buffer; nil when it has none (a hardware format).
    static func bytesPer64Pixels(_ descriptor: UnsafePointer<AVPixFmtDescriptor>) -> Int? {
        let bits = Int(av_get_padded_bits_per_pixel(descriptor))
        return bits > 0 ? bits * 8 : nil
    }
}
