// The libavcodec encoder of one animation: found by name at run time, set up per format, fed frames, drained of packets.
@_weakLinked import CFFmpeg
import Foundation

/// Owns the encoder's `AVCodecContext` (through `CodecContext`).
final class AnimationEncoder {
    let format: AnimationFormat
    let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    /// The pixel format frames must be in.
    let pixelFormat: AVPixelFormat
    private let path: String

    /// Bytes of the pictures the encoder may hold at once, for the memory check: x264's
    /// lookahead, B-frames and references (yuv420p); libwebp's canvases and sub-frame candidates (ARGB).
    static func heldPictureBytes(format: AnimationFormat, options: AnimationOptions, width: Int, height: Int) -> Int {
        switch format {
        case .mp4: return (options.x264Lookahead + 12) * width * height * 3 / 2
        case .webp: return 8 * width * height * 4
        }
    }

    /// `encoderName` is the format's own except in tests of the missing-encoder path.
    init(format: AnimationFormat, options: AnimationOptions, width: Int, height: Int, frameRate: Double?,
         globalHeader: Bool, path: String, encoderName: String? = nil) throws {
        self.format = format
        self.path = path
        let codec = try Self.findEncoder(encoderName ?? format.encoderName, format: format, path: path)
        pixelFormat = format == .webp ? AV_PIX_FMT_BGRA : AV_PIX_FMT_YUV420P
        guard Self.pixelFormats(of: codec).contains(pixelFormat) else {
            throw ClipKitError.internalFailure(path: path, reason: "the \(format.encoderName) encoder does not take pixel format \(pixelFormat.rawValue)")
        }
        codecContext = try CodecContext(codec: codec, path: path)
        let c = codecContext.pointer
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = pixelFormat
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.time_base = AVRational(num: 1, den: format.ticksPerSecond)
        // Rate control and the H.264 level need a frame rate; timestamps still follow the frames.
        let rate = frameRate.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? 30
        c.pointee.framerate = av_d2q(rate, 1 << 16)
        c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // One thread: x264's output depends on its thread count, which would follow the machine's cores.
        c.pointee.thread_count = 1
        switch format {
        case .webp:
            c.pointee.compression_level = Int32(options.webpMethod)
            try set("lossless", options.lossless ? "1" : "0")
            try set("quality", String(options.quality))
        case .mp4:
            c.pointee.color_range = AVCOL_RANGE_MPEG
            c.pointee.colorspace = AVCOL_SPC_BT709
            c.pointee.color_primaries = AVCOL_PRI_BT709
            c.pointee.color_trc = AVCOL_TRC_BT709
            try set("preset", options.x264Preset)
            try set("crf", String(options.crf))
            try set("rc-lookahead", String(options.x264Lookahead))
            if let bFrames = options.x264BFrames { c.pointee.max_b_frames = Int32(bFrames) }
            if let features = Self.x264Features(cpuFlags: av_get_cpu_flags()) { try set("x264-params", "asm=\(features)") }
        }
        let status = avcodec_open2(c, codec, nil)
        if status < 0 {
            throw ClipKitError.internalFailure(path: path, reason: "cannot open the \(format.encoderName) encoder for \(width)x\(height): \(ffmpegMessage(status))")
        }
    }

    /// The CPU features x264 may use (its `asm` option): those libavutil detects, AVX-512 left
    /// out; nil off x86, where x264 has no AVX-512 code and keeps its own detection.
    ///
    /// x264's AVX-512 `mbtree_propagate_list` (r3095, and upstream as of 2024) takes 8 macroblocks
    /// at a time and does not mask the lanes past a row's end. On the last row those lanes read
    /// past x264's lookahead arrays into allocation slack nothing wrote: whatever an earlier
    /// encoder or decoder in the process left there. Where those bytes read as a motion vector
    /// into the picture with a cost, they add to the macroblock tree's costs and the bitstream
    /// changes: a batch's MP4s differed from run to run (11 of 66 clips, each a width that is
    /// not a multiple of 8 macroblocks). The SSSE3 to AVX2 versions finish a row in C, so
    /// without AVX-512 an MP4 depends on its input, options and CPU only, not on the heap; on an
    /// AVX-512 machine it is the MP4 x264 writes with AVX2 (AVX-512's macroblock tree also
    /// divides where AVX2 refines a reciprocal, so 12 of the 136 MP4s `bench/same_bytes.sh`
    /// makes from the fixtures changed once). A 10 s 720p clip encoded at the source size took
    /// as long either way (6.0 s user, within noise).
    static func x264Features(cpuFlags: Int32) -> String? {
        #if arch(x86_64) || arch(i386)
        // x264's names for them (`x264_cpu_names`); each name also sets the ones it implies.
        let names: [(flag: Int32, name: String)] = [
            (AV_CPU_FLAG_MMXEXT, "MMX2"), (AV_CPU_FLAG_SSE, "SSE"),
            (AV_CPU_FLAG_SSE2, cpuFlags & AV_CPU_FLAG_SSE2SLOW != 0 ? "SSE2Slow" : "SSE2"),
            (AV_CPU_FLAG_SSE3, "SSE3"), (AV_CPU_FLAG_SSSE3, "SSSE3"), (AV_CPU_FLAG_SSE4, "SSE4.1"),
            (AV_CPU_FLAG_SSE42, "SSE4.2"), (AV_CPU_FLAG_AVX, "AVX"), (AV_CPU_FLAG_XOP, "XOP"),
            (AV_CPU_FLAG_FMA4, "FMA4"), (AV_CPU_FLAG_FMA3, "FMA3"), (AV_CPU_FLAG_BMI1, "BMI1"),
            (AV_CPU_FLAG_BMI2, "BMI2"), (AV_CPU_FLAG_AVX2, "AVX2"),
        ]
        let present = names.filter { cpuFlags & $0.flag != 0 }.map(\.name)
        // None: x264's C code.
        return present.isEmpty ? "0" : present.joined(separator: ",")
        #else
        return nil
        #endif
    }

    /// The encoder called `name`, or `encoderMissing` naming the format and what to install.
    static func findEncoder(_ name: String, format: AnimationFormat, path: String) throws -> UnsafePointer<AVCodec> {
        try FFmpegLibraries.load()
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw ClipKitError.encoderMissing(path: path, format: format.displayName, encoder: name, library: format.encoderLibrary)
        }
        return codec
    }

    /// The pixel formats an encoder lists (empty when it lists none).
    static func pixelFormats(of codec: UnsafePointer<AVCodec>) -> [AVPixelFormat] {
        var formats: [AVPixelFormat] = []
        guard var entry = codec.pointee.pix_fmts else { return formats }
        while entry.pointee != AV_PIX_FMT_NONE {
            formats.append(entry.pointee)
            entry += 1
        }
        return formats
    }

    private func set(_ option: String, _ value: String) throws {
        let status = av_opt_set(context.pointee.priv_data, option, value, 0)
        if status < 0 {
            throw ClipKitError.internalFailure(path: path, reason: "\(format.encoderName) refused \(option)=\(value): \(ffmpegMessage(status))")
        }
    }

    /// Sends a frame, or nil to flush.
    func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        let status = avcodec_send_frame(context, frame)
        if status < 0 {
            throw ClipKitError.internalFailure(path: path, reason: "\(format.encoderName) failed: \(ffmpegMessage(status))")
        }
    }

    /// The next packet into `packet`; false when the encoder needs more input or has ended.
    func receive(into packet: UnsafeMutablePointer<AVPacket>) throws -> Bool {
        let status = avcodec_receive_packet(context, packet)
        if status == ck_averror_eagain() || status == ck_averror_eof() { return false }
        if status < 0 {
            throw ClipKitError.internalFailure(path: path, reason: "\(format.encoderName) failed: \(ffmpegMessage(status))")
        }
        return true
    }
}
