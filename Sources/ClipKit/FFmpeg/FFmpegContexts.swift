// One-field owners of FFmpeg's contexts: each frees its pointer in deinit, so a throwing initialiser never leaks one.
@_weakLinked import CFFmpeg
import Foundation

/// An open `AVFormatContext`. Its interrupt callback ends blocking reads and probing once the
/// deadline has passed, so `--timeout` reaches inside libavformat too.
final class FormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// Owned here; libavformat holds it only as the interrupt callback's opaque pointer.
    private let deadline: DeadlineCell

    /// Opens `path` (headers only: `avformat_open_input`).
    init(path: String, deadline: Deadline) throws {
        try FFmpegLibraries.load()
        guard let context = avformat_alloc_context() else {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        DecoderDamageLog.forgetFormat(Int(bitPattern: context))
        let cell = DeadlineCell(deadline)
        context.pointee.interrupt_callback.callback = { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<DeadlineCell>.fromOpaque(opaque).takeUnretainedValue().deadline.hasPassed ? 1 : 0
        }
        context.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(cell).toOpaque()
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        // On failure avformat_open_input frees the context itself.
        let status = avformat_open_input(&opened, FileSystemPath.cString(path), nil, nil)
        guard status >= 0, let opened else {
            try deadline.check(path)
            // An MP4 cut before its index is a damaged video, not a file that is no video at all.
            if status == ck_averror_invaliddata() && MP4Index.isMissing(at: path) {
                throw ClipKitError.corrupt(path: path, reason: MP4Index.missingReason)
            }
            // A file whose headers run past its end (a Matroska file cut inside them gives EIO,
            // others the end of file): a damaged video too.
            if status == ck_averror_eof() || status == ck_averror_eio() {
                throw ClipKitError.corrupt(path: path, reason: "the file ends inside its headers (\(ffmpegMessage(status))): cut short")
            }
            throw ClipKitError.notMedia(path: path, reason: ffmpegMessage(status))
        }
        pointer = opened
        self.deadline = cell
    }

    deinit {
        DecoderDamageLog.forgetFormat(Int(bitPattern: pointer))
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }

    /// Whether the demuxer met the end of the file inside an element (Matroska's "File ended
    /// prematurely": a cluster or block cut off), as read so far.
    var endedInsideElement: Bool { DecoderDamageLog.endedEarly(Int(bitPattern: pointer)) }

    /// The deadline in a class, so libavformat's callback can reach it through a raw pointer.
    private final class DeadlineCell {
        let deadline: Deadline
        init(_ deadline: Deadline) { self.deadline = deadline }
    }
}

/// An `AVCodecContext` for one decode.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    /// The token this context's log reports damage under (`DecoderDamageLog`), when asked for.
    private(set) var damageToken: Int?

    init(codec: UnsafePointer<AVCodec>, path: String) throws {
        try FFmpegLibraries.load()
        guard let context = avcodec_alloc_context3(codec) else {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        pointer = context
    }

    /// Asks `context` to crop its pictures exactly as the stream says (`AV_CODEC_FLAG_UNALIGNED`).
    /// An H.264 or HEVC stream may crop its coded picture on any side (1920x1088 coded, shown
    /// 1920x1080; a camera's or a re-encode's crop from the left or top). libavcodec applies a
    /// left or top crop only as far as keeps the planes aligned in memory, so a crop of 16 columns
    /// from the left came out as none: the thumbnail 636 wide where the stream (and `info`) says
    /// 620, and GIFs squeezed the 636 columns into 620. With the flag the planes start where the
    /// crop does, unaligned, which libswscale reads as it reads any frame.
    static func requestExactCropping(_ context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.flags |= Int32(AV_CODEC_FLAG_UNALIGNED)
    }

    /// An open one-thread decoder for `stream` (a first picture is all that is wanted:
    /// `DecodableStart`, `FirstPicture`), refusing pictures over `maxPixels` when given; nil
    /// when it cannot be opened.
    static func oneThreadDecoder(_ decoder: UnsafePointer<AVCodec>, for stream: UnsafeMutablePointer<AVStream>, path: String,
                                 maxPixels: Int? = nil) -> CodecContext? {
        guard let context = try? CodecContext(codec: decoder, path: path),
              avcodec_parameters_to_context(context.pointer, stream.pointee.codecpar) >= 0 else { return nil }
        context.pointer.pointee.pkt_timebase = stream.pointee.time_base
        requestExactCropping(context.pointer)
        context.pointer.pointee.thread_count = 1
        if let maxPixels { context.pointer.pointee.max_pixels = Int64(maxPixels) }
        return avcodec_open2(context.pointer, decoder, nil) >= 0 ? context : nil
    }

    /// Notes the damage this context (and its frame threads) logs (`DecoderDamageLog`); before it opens.
    func reportsDamage() {
        let token = DecoderDamageLog.register()
        damageToken = token
        pointer.pointee.opaque = UnsafeMutableRawPointer(bitPattern: token)
    }

    /// Pictures the decoder is given start out zeroed (`avcodec_default_get_buffer2`, then every
    /// buffer cleared): FFmpeg's buffers hold whatever was there before, and a decoder that leaves
    /// part of a damaged picture unwritten (HEVC has no error concealment: a slice missing) showed
    /// it, different from run to run (8 different GIFs in 10 runs of one raw HEVC stream).
    func clearsNewPictures() {
        pointer.pointee.get_buffer2 = { context, frame, flags in
            let status = avcodec_default_get_buffer2(context, frame, flags)
            guard status >= 0, let frame else { return status }
            withUnsafeMutablePointer(to: &frame.pointee.buf) { buffers in
                buffers.withMemoryRebound(to: UnsafeMutablePointer<AVBufferRef>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { buffers in
                    for i in 0..<Int(AV_NUM_DATA_POINTERS) {
                        guard let buffer = buffers[i], let data = buffer.pointee.data else { continue }
                        data.update(repeating: 0, count: Int(buffer.pointee.size))
                    }
                }
            }
            return status
        }
    }

    /// Whether the context logged damage since the last call.
    func takeLoggedDamage() -> Bool {
        damageToken.map(DecoderDamageLog.takeDamage) ?? false
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&context)
        if let damageToken { DecoderDamageLog.forget(damageToken) }
    }
}
