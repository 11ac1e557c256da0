// One muxer: an AVFormatContext with a single video stream, writing through an OutputSink.
@_weakLinked import CFFmpeg
import Foundation

/// Owns an output `AVFormatContext` and its custom `AVIOContext` (and the IO buffer), freed in
/// `deinit` on every path, whether or not the header or trailer was written.
final class OutputFormatContext {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    /// Kept alive here: libavformat holds it only as the IO callbacks' opaque pointer.
    let sink: OutputSink
    private var headerWritten = false
    private var trailerWritten = false

    /// The muxer `name` ("webp", "mp4") with one stream described by `encoder`'s parameters,
    /// header not yet written.
    init(muxer name: String, encoder: UnsafeMutablePointer<AVCodecContext>, sink: OutputSink) throws {
        self.sink = sink
        let path = sink.path
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_alloc_output_context2(&allocated, nil, name, nil)
        guard status >= 0, let allocated else {
            throw ClipKitError.internalFailure(path: path, reason: "this FFmpeg has no \(name) muxer (\(ffmpegMessage(status)))")
        }
        context = allocated
        guard let stream = avformat_new_stream(allocated, nil) else {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        let copied = avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
        if copied < 0 { throw ClipKitError.internalFailure(path: path, reason: ffmpegMessage(copied)) }
        stream.pointee.time_base = encoder.pointee.time_base
        stream.pointee.avg_frame_rate = encoder.pointee.framerate
        // No version strings or creation times: the same frames give the same bytes.
        allocated.pointee.flags |= AVFMT_FLAG_BITEXACT | AVFMT_FLAG_CUSTOM_IO
        // mov's fast start re-reads what it wrote by opening the URL itself: the temp file.
        av_freep(&allocated.pointee.url)
        allocated.pointee.url = av_strdup(FileSystemPath.cString("file:" + sink.file.temporaryPath))

        let bufferSize: Int32 = 1 << 16
        guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        io = avio_alloc_context(buffer, bufferSize, 1, opaque, nil, { opaque, bytes, count in
            guard let opaque, let bytes, count >= 0 else { return ck_averror_eio() }
            let sink = Unmanaged<OutputSink>.fromOpaque(opaque).takeUnretainedValue()
            return sink.write(bytes, count: Int(count)) ? count : ck_averror_eio()
        }, { opaque, offset, whence in
            guard let opaque else { return Int64(ck_averror_eio()) }
            let sink = Unmanaged<OutputSink>.fromOpaque(opaque).takeUnretainedValue()
            if whence & AVSEEK_SIZE != 0 { return sink.size }
            return sink.seek(to: offset, whence: whence & ~AVSEEK_FORCE) ?? Int64(ck_averror_eio())
        })
        guard let io else {
            av_free(buffer)
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        allocated.pointee.pb = io
    }

    deinit {
        // The muxer's own state first (it may still point at the IO context), then the IO context.
        if let context { avformat_free_context(context) }
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
    }

    var stream: UnsafeMutablePointer<AVStream> { context!.pointee.streams[0]! }

    /// Writes the header with the muxer's `options` ("movflags": "+faststart", ...).
    func writeHeader(options: [String: String]) throws {
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dictionary, key, value, 0) }
        let status = avformat_write_header(context, &dictionary)
        try check(status, doing: "write the header")
        headerWritten = true
    }

    /// Writes `packet` (timestamps in the stream's time base); the caller keeps the packet.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        packet.pointee.stream_index = 0
        try check(av_write_frame(context, packet), doing: "write a packet")
    }

    /// Writes the trailer (MP4: `moov`, moved to the front) and flushes the last bytes.
    func finish() throws {
        guard headerWritten, !trailerWritten else { return }
        trailerWritten = true
        try check(av_write_trailer(context), doing: "write the trailer")
        avio_flush(io)
        if let failure = sink.failure { throw failure }
    }

    private func check(_ status: Int32, doing what: String) throws {
        if let failure = sink.failure { throw failure }
        if status < 0 {
            throw ClipKitError.outputFailed(path: sink.path, reason: "cannot \(what): \(ffmpegMessage(status))")
        }
    }
}
