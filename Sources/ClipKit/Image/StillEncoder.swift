// Encodes one RGBA picture as the bytes of a JPEG or WebP file with libavcodec (mjpeg, libwebp).
@_weakLinked import CFFmpeg
import Foundation

/// Owns what encoding pictures takes: the libswscale context that turns RGBA into the encoder's
/// YUV, and one AVFrame and AVPacket reused for every picture. A codec context is opened per
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
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    private var converter: OpaquePointer?

    /// An encoder for `format` (JPEG or WebP), checked now: a libavcodec built without it gives
    /// an error naming the format and the input `path` being worked on.
    init(format: StillImageFormat, quality: Int, path: String) throws {
        guard let name = format.encoderName else {
            throw ClipKitError.internalFailure(path: path, reason: "\(format.rawValue) is not written by libavcodec")
        }
        try FFmpegLibraries.load()
        encoder = try Self.findEncoder(named: name, for: format, path: path)
        guard let frame = av_frame_alloc() else { throw ClipKitError.internalFailure(path: path, reason: "out of memory") }
        guard let packet = av_packet_alloc() else {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        self.frame = frame
        self.packet = packet
        self.format = format
        self.quality = min(max(quality, 1), 100)
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
        if converter != nil { sws_freeContext(converter) }
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

        av_frame_unref(frame)
        frame.pointee.format = pixelFormat.rawValue
        frame.pointee.width = Int32(image.width)
        frame.pointee.height = Int32(image.height)
        status = av_frame_get_buffer(frame, 0)
        guard status >= 0 else { throw ClipKitError.internalFailure(path: path, reason: "out of memory for a \(image.width)x\(image.height) picture") }
        try convert(image, fullRange: format == .jpeg, path: path)
        frame.pointee.quality = codec.pointee.global_quality
        frame.pointee.pts = 0

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
        av_frame_unref(frame)
        guard !bytes.isEmpty else { throw ClipKitError.internalFailure(path: path, reason: "the \(format.rawValue) encoder gave no data") }
        return bytes
    }

    /// RGBA to the frame's YUV with BT.601 coefficients, full chroma input (every pixel counts
    /// towards the 4:2:0 chroma, not every other one), in full or limited range.
    private func convert(_ image: RGBAImage, fullRange: Bool, path: String) throws {
        let flags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP
        converter = sws_getCachedContext(converter, Int32(image.width), Int32(image.height), AV_PIX_FMT_RGBA,
                                         Int32(image.width), Int32(image.height), AVPixelFormat(rawValue: frame.pointee.format),
                                         flags, nil, nil, nil)
        guard let converter else { throw ClipKitError.internalFailure(path: "swscale", reason: "cannot convert RGBA for the \(format.rawValue) encoder") }
        let bt601 = sws_getCoefficients(SWS_CS_ITU601)
        sws_setColorspaceDetails(converter, bt601, 1, bt601, fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        let f = frame.pointee
        var planes: [UnsafeMutablePointer<UInt8>?] = [f.data.0, f.data.1, f.data.2, nil]
        let strides: [Int32] = [f.linesize.0, f.linesize.1, f.linesize.2, 0]
        let scaled: Int32 = image.pixels.withUnsafeBufferPointer { source in
            var src: [UnsafePointer<UInt8>?] = [source.baseAddress, nil, nil, nil]
            return sws_scale(converter, &src, [Int32(image.width * 4), 0, 0, 0], 0, Int32(image.height), &planes, strides)
        }
        if scaled <= 0 { throw ClipKitError.internalFailure(path: path, reason: "converting the picture for \(format.rawValue) failed") }
    }
}
