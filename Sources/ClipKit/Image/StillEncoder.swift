// Encodes one RGBA picture as the bytes of a JPEG or WebP file with libavcodec (mjpeg, libwebp).
@_weakLinked import CFFmpeg
import Foundation

/// Owns what encoding pictures takes: one AVPacket reused for every picture, and per picture a
/// `PictureConverter` (RGBA to the encoder's YUV, and the frame it fills). A codec context is opened per
/// picture (sheets differ in size, and opening mjpeg or libwebp costs well under a millisecond),
/// each by its own `CodecContext` owner.
///
/// JPEG is 4:2:0 in full range (JFIF), BT.601 as every decoder assumes; WebP is 4:2:0 in
/// limited range, as libwebp stores it. One thread, bit-exact flags: the same pixels give the
/// same bytes.
final class StillEncoder {
    let format: StillImageFormat
    /// 1 (smallest files) to 100 (best pictures).
    let quality: Int
    private let encoder: UnsafePointer<AVCodec>
    private let packet: UnsafeMutablePointer<AVPacket>

    /// An encoder for `format` (JPEG or WebP), checked now: a libavcodec built without it gives
    /// an error naming the format and the input `path` being worked on.
    init(format: StillImageFormat, quality: Int, path: String) throws {
        guard let name = format.encoderName else {
            throw ClipKitError.internalFailure(path: path, reason: "\(format.rawValue) is not written by libavcodec")
        }
        try FFmpegLibraries.load()
        encoder = try Self.findEncoder(named: name, for: format, path: path)
        guard let packet = av_packet_alloc() else { throw ClipKitError.internalFailure(path: path, reason: "out of memory") }
        self.packet = packet
        self.format = format
        self.quality = min(max(quality, 1), 100)
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }

    /// libavcodec's encoder `name`, looked up at run time: FFmpeg builds differ (libwebp is an
    /// optional dependency).
    static func findEncoder(named name: String, for format: StillImageFormat, path: String) throws -> UnsafePointer<AVCodec> {
        try FFmpegLibraries.load()
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw ClipKitError.internalFailure(
                path: path, reason: "--format \(format.rawValue) needs libavcodec's \(name) encoder, which this FFmpeg was built without; use another --format (png needs none)")
        }
        return codec
    }

    /// mjpeg's quantiser scale for a quality: 100 gives 2 (the finest libavcodec allows by
    /// default), 1 gives 31 (the coarsest), linearly between.
    static func jpegQuantizer(quality: Int) -> Int {
        let q = min(max(quality, 1), 100)
        return Int((2 + Double(100 - q) * 29 / 99).rounded())
    }

    /// The file's bytes for `image` (alpha is dropped: neither format stores it here).
    func encode(_ image: RGBAImage, path: String) throws -> [UInt8] {
        guard image.width > 0, image.height > 0, image.width <= format.maxDimension, image.height <= format.maxDimension else {
            throw ClipKitError.internalFailure(path: path, reason: "a \(image.width)x\(image.height) picture cannot be written as \(format.rawValue)")
        }
        let context = try CodecContext(codec: encoder, path: path)
        let codec = context.pointer
        let pixelFormat = format == .jpeg ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P
        codec.pointee.width = Int32(image.width)
        codec.pointee.height = Int32(image.height)
        codec.pointee.pix_fmt = pixelFormat
        codec.pointee.time_base = AVRational(num: 1, den: 1)
        codec.pointee.thread_count = 1
        codec.pointee.flags |= Int32(AV_CODEC_FLAG_BITEXACT)
        codec.pointee.colorspace = AVCOL_SPC_BT470BG
        if format == .jpeg {
            // A fixed quantiser; mpegvideo takes it from each frame's `quality` (set below).
            codec.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            codec.pointee.global_quality = Int32(Self.jpegQuantizer(quality: quality)) * FF_QP2LAMBDA
            codec.pointee.color_range = AVCOL_RANGE_JPEG
        } else {
            // libwebp's quality 0-100, passed as global_quality in lambda units.
            codec.pointee.global_quality = Int32(quality) * FF_QP2LAMBDA
            codec.pointee.color_range = AVCOL_RANGE_MPEG
        }
        var status = avcodec_open2(codec, encoder, nil)
        guard status >= 0 else {
            throw ClipKitError.internalFailure(path: path, reason: "cannot open the \(format.encoderName ?? "") encoder: \(ffmpegMessage(status))")
        }

        let converter = try PictureConverter(width: image.width, height: image.height, format: pixelFormat,
                                             conversion: .still(fullRange: format == .jpeg), path: path)
        let frame = try converter.frame(from: image, pts: 0, path: path)
        frame.pointee.quality = codec.pointee.global_quality

        status = avcodec_send_frame(codec, frame)
        guard status >= 0 else { throw ClipKitError.internalFailure(path: path, reason: "\(format.rawValue) encoding failed: \(ffmpegMessage(status))") }
        avcodec_send_frame(codec, nil)
        var bytes: [UInt8] = []
        while true {
            status = avcodec_receive_packet(codec, packet)
            if status == ck_averror_eof() || status == ck_averror_eagain() { break }
            guard status >= 0 else { throw ClipKitError.internalFailure(path: path, reason: "\(format.rawValue) encoding failed: \(ffmpegMessage(status))") }
            if let data = packet.pointee.data, packet.pointee.size > 0 {
                bytes += UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))
            }
            av_packet_unref(packet)
        }
        guard !bytes.isEmpty else { throw ClipKitError.internalFailure(path: path, reason: "the \(format.rawValue) encoder gave no data") }
        return bytes
    }
}
