// Opens a media file with libavformat and describes its best video stream; owns the format context.
@_weakLinked import CFFmpeg
import Foundation

/// Owns the AVFormatContext of one open file and knows its video stream.
final class Demuxer {
    let path: String
    /// Replaced only by `reopen()`.
    private var context: FormatContext
    /// Whether reading met the end of the file inside an element (`FormatContext.endedInsideElement`).
    var endedInsideElement: Bool { context.endedInsideElement }
    let deadline: Deadline
    /// Whether opening probed the streams by decoding (`reopen()` opens the same way).
    private let probed: Bool
    var format: UnsafeMutablePointer<AVFormatContext> { context.pointer }
    let streamIndex: Int32
    /// Changed only by `adoptGeometry(of:)`.
    private(set) var info: VideoInfo
    /// The streams were not probed: the first picture decoded gives the size, and the pixel
    /// aspect ratio where the headers gave none (`adoptGeometry(of:)`, `FirstPicture`).
    private(set) var awaitsFirstPicture: Bool
    /// Whether the headers gave a pixel aspect ratio (which a picture's does not replace).
    private let headersGiveAspect: Bool
    /// The whole file's length (the longest stream, audio included), when known.
    let containerDuration: Double?
    let decoder: UnsafePointer<AVCodec>
    /// Where the clip starts, in the stream's time base: the stream's first timestamp, or the
    /// first frame its decoder gives when the file begins between keyframes (`DecodableStart`);
    /// nil without timestamps.
    let startTime: Int64?
    /// `info.duration` is the video stream's own (its header's), not only the container's,
    /// which may run on to the end of another stream.
    let durationIsTheStreams: Bool
    /// The video stream's timestamps jump (MPEG-TS/PS joined from parts: `TimestampJumps`):
    /// its length is the continuous times', and it is not sought by timestamp.
    let timestampsJump: Bool
    /// Makes the timestamps of the video packets `read(_:)` gives continuous, in the formats
    /// whose timestamps may jump; restarted with every rewind or seek.
    var jumps: TimestampJumps?
    /// The file could not be rewound after `DecodableStart` read it: the first pass rewinds it.
    let movedAtOpen: Bool
    /// When the file begins between keyframes: the first frame shown, which packets timed
    /// before it are no part of, and the key packet its decode starts from (`DecodableStart`,
    /// `UndecodableLead`).
    let decodableStart: DecodableStart.Start?
    /// The first frame shown, when the file begins between keyframes.
    var undecodableBefore: Int64? { decodableStart?.shown }
    /// How far the packets read so far reach, any stream's, in seconds on the file's clock: the
    /// latest presentation (else decode) time plus duration; -infinity before any is read.
    /// Updated by `read(_:)`, never lowered; compared with `statedEnd` (`FrameDecoder.endsShort`).
    var packetsReach = -Double.infinity
    /// The error `read(_:)` last stopped at that was not the end of the file (`readStopWarning`).
    var readFailure: Int32?

    init(url: URL, maxPixels: Int = 100_000_000, maxMemory: Int = Limits().maxMemory, deadline: Deadline = .none,
         fullProbe: Bool = true, coverArt: Bool = false, geometryAtOpen: Bool = false) throws {
        try FFmpegLibraries.load()
        Demuxer.quietLogs
        let path = url.path
        self.path = path
        try InputFile.check(path)

        // libavformat reports a PNG too large for it as having no picture size: read the size
        // from the header first, so the limit is named. Probing decodes the PNG whole, before any
        // command can check its own memory, and FFmpeg's decoder holds more than the picture:
        // peak RSS of `info` less the binary's 21 MB, per pixel, was 7.7 for 8-bit RGB (2.6 times
        // its 3 bytes), 13.4 for 16-bit RGB, 5.7 RGBA, 1.7 palette, 1.2 grey; counted as twice the
        // file's own bytes a pixel and two more (an 8000x8000 RGB PNG took 436 MB to probe under
        // any --max-memory: `storyboard` ran at 460 MB under 100 MB).
        if Demuxer.startsWithPNGSignature(path), let size = try? PNGReader.size(of: url),
           let sampleBytes = try? PNGReader.sampleBytes(of: url) {
            var limits = Limits()
            limits.maxPixels = maxPixels
            limits.maxMemory = maxMemory
            try limits.checkPixels(width: size.0, height: size.1, what: "image size", path: path)
            try limits.checkMemory(bytes: size.0 * size.1 * (2 * sampleBytes + 2), for: "decoding a \(size.0)x\(size.1) PNG", path: path)
        }
        let owner = try FormatContext(path: path, deadline: deadline)
        self.context = owner
        self.deadline = deadline
        let context = owner.pointer
        var status: Int32 = 0
        // Probing decodes frames: refuse sizes the container headers already declare too big.
        for i in 0..<Int(context.pointee.nb_streams) {
            let parameters = context.pointee.streams[i]!.pointee.codecpar.pointee
            if parameters.codec_type == AVMEDIA_TYPE_VIDEO, Int(parameters.width) * Int(parameters.height) > maxPixels {
                throw ClipKitError.limitExceeded(path: path, what: "frame size \(parameters.width)x\(parameters.height)",
                                                 limit: "\(maxPixels) pixels", option: "--max-pixels")
            }
        }
        // Probing decodes frames of every stream: the most expensive step of a thumbnail. Skip it
        // when the container's headers already describe the video (MP4/MOV do) and the caller
        // needs no more; `info` asks for a full probe (pixel format, frame rate estimates).
        probed = fullProbe || !Demuxer.headersDescribeVideo(context)
        if probed {
            status = avformat_find_stream_info(context, nil)
        }
        if status < 0 {
            try deadline.check(path)
            throw ClipKitError.corrupt(path: path, reason: ffmpegMessage(status))
        }
        var codec: UnsafePointer<AVCodec>? = nil
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)
        guard index >= 0 else {
            if index == ck_averror_decoder_not_found() {
                throw ClipKitError.notMedia(path: path, reason: "no decoder for its video codec")
            }
            throw ClipKitError.noVideoStream(path: path)
        }
        guard let codec else {
            throw ClipKitError.notMedia(path: path, reason: "no decoder for its video codec")
        }
        streamIndex = index
        let stream = context.pointee.streams[Int(index)]!.pointee
        let chosenDecoder = Self.alphaDecoder(for: stream) ?? codec
        decoder = chosenDecoder
        // Cover art in an audio file is a one-picture "video" stream (chosen only when no real
        // video is there): not a clip, but a picture for a caller that asks (`coverArt`: the
        // thumbnailer, as ffmpegthumbnailer takes it). Its stream has no length of its own.
        let isCoverArt = stream.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        if isCoverArt && !coverArt {
            throw ClipKitError.noVideoStream(path: path)
        }
        let parameters = stream.codecpar.pointee
        if parameters.width <= 0 || parameters.height <= 0 {
            // FFmpeg's WebP decoder (before 7.1) reads still pictures only: an animated WebP
            // opens with no picture size, and is not damaged.
            if parameters.codec_id == AV_CODEC_ID_WEBP && Self.isAnimatedWebP(path) {
                throw ClipKitError.notMedia(path: path, reason: "an animated WebP, which this FFmpeg's WebP decoder cannot read; "
                                            + "convert it to GIF or MP4 first")
            }
            throw ClipKitError.corrupt(path: path, reason: "video stream has no picture size")
        }
        let rotation: Rotation
        if let matrix = Self.displayMatrix(of: context.pointee.streams[Int(index)]) {
            rotation = Rotation(displayMatrix: Array(UnsafeBufferPointer(start: matrix, count: 9)))
        } else if parameters.codec_id == AV_CODEC_ID_MJPEG, ["jpeg_pipe", "image2"].contains(String(cString: context.pointee.iformat.pointee.name)),
                  let orientation = JPEGOrientation.orientation(ofFile: path) {
            // A JPEG photo: its EXIF orientation, as browsers and viewers show it.
            rotation = Rotation(exifOrientation: orientation)
        } else {
            rotation = .identity
        }
        let timeBase = stream.time_base.seconds
        var rewound = true
        let decodable = DecodableStart.find(format: context, index: index, decoder: chosenDecoder, start: stream.start_time,
                                            deadline: deadline, path: path, rewound: &rewound)
        let firstShown = decodable?.shown
        // Formats whose timestamps may jump are read whole once: only then are the clip's length
        // and whether it may be sought by timestamp known.
        let frameRate = Demuxer.plausibleRate(stream.avg_frame_rate) ?? Demuxer.plausibleRate(stream.r_frame_rate)
        var scan: TimestampJumps.Scan?
        if TimestampJumps.applies(to: context.pointee.iformat.pointee) {
            jumps = TimestampJumps(timeBase: timeBase, frameRate: frameRate)
            if rewound, stream.start_time != ck_av_nopts_value() {
                scan = TimestampJumps.scan(format: context, index: index, frameRate: frameRate, deadline: deadline)
                rewound = Demuxer.rewindBytes(context)
            }
        }
        let jumpScan = scan?.jumped == true ? scan : nil
        timestampsJump = jumpScan != nil
        movedAtOpen = !rewound
        decodableStart = decodable
        startTime = firstShown ?? (stream.start_time == ck_av_nopts_value() ? nil : stream.start_time)
        // The undecodable lead is not part of the clip (the lengths below count from the first timestamp).
        let lead = firstShown.map { Double($0 - stream.start_time) * timeBase } ?? 0
        var duration: Double? = nil
        durationIsTheStreams = (stream.duration > 0 && stream.duration != ck_av_nopts_value() && timeBase > 0) || jumpScan != nil
        if let jumpScan {
            // From the first frame shown to where the last ends, in continuous time.
            duration = Double(jumpScan.end - (firstShown ?? stream.start_time)) * timeBase
        } else if durationIsTheStreams {
            duration = Double(stream.duration) * timeBase
        } else if context.pointee.duration > 0 && context.pointee.duration != ck_av_nopts_value() {
            duration = Double(context.pointee.duration) / Double(AV_TIME_BASE)
            duration = duration.map { Demuxer.length(ofSegmentDuration: $0, format: context.pointee) }
        }
        if let header = duration, Demuxer.isOpenEndedDuration(header) { duration = nil }
        // A fragmented MP4 (no sample count in its moov) gives as length where its last fragment
        // ends, counted from zero, not from its first: an HLS segment of 1.92 s from 2.56 s said
        // 4.48 s, and its storyboard and `--at 50%` went by that. Measured from its packets instead.
        let fragmented = Demuxer.isFragmentedMP4(context, stream: stream)
        // A length libavformat estimated from the bit rate is no length (a raw MPEG-1 stream of
        // 3 s said 0.002 s, and `thumb --at 1.5` was refused as past its end): measured instead.
        let guessed = context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
        if fragmented || guessed { duration = nil }
        if let header = duration, lead > 0, jumpScan == nil { duration = max(header - lead, 0) }
        // The stream read whole ends later than the header says (packets without presentation
        // times at the end, which the header's estimate leaves out): its length from the packets.
        if jumpScan == nil, let scan, let header = duration, timeBase > 0 {
            let read = Double(scan.end - (firstShown ?? stream.start_time)) * timeBase
            if read > header + 0.001 { duration = read }
        }
        // Most frames without a time: they are decoded at their own duration, one frame of the
        // nominal rate each (`FrameDecoder.presentationTime`), and last as many frames as there
        // are. (libavformat's length from the few times, misplaced on the frames that carry them,
        // was 3.92 s for 75 frames at 25 fps, and 11.72 s for 300; their GIFs 3.0 and 12.0 s.)
        if jumpScan == nil, let scan, scan.isMostlyUntimed, let frameRate {
            duration = Double(scan.packets) / frameRate
        }
        if isCoverArt { duration = nil }
        var whole: Double?
        if context.pointee.duration > 0 && context.pointee.duration != ck_av_nopts_value() {
            whole = Demuxer.length(ofSegmentDuration: Double(context.pointee.duration) / Double(AV_TIME_BASE), format: context.pointee)
            if let value = whole, Demuxer.isOpenEndedDuration(value) { whole = nil }
            if let value = whole, lead > 0 { whole = max(value - lead, 0) }
        }
        // The container's length runs from the first timestamp to the last, across the jumps.
        if jumpScan != nil || fragmented || guessed { whole = duration }
        containerDuration = whole
        var aspect = av_guess_sample_aspect_ratio(context, context.pointee.streams[Int(index)], nil)
        var size = (width: Int(parameters.width), height: Int(parameters.height))
        // Unprobed: the first picture's size, and its pixel aspect ratio where the headers give
        // none (`FirstPicture`), now (one picture decoded) or when the first is decoded anyway.
        headersGiveAspect = aspect.num != 0
        awaitsFirstPicture = !probed && !isCoverArt
        if awaitsFirstPicture && geometryAtOpen {
            awaitsFirstPicture = false
            if let first = FirstPicture.geometry(path: path, index: index, decoder: chosenDecoder, maxPixels: maxPixels, deadline: deadline) {
                size = (first.width, first.height)
                if !headersGiveAspect, let picture = first.aspect { aspect = picture }
            }
        }
        aspect = Demuxer.plausibleAspect(aspect) ?? AVRational(num: 1, den: 1)
        let pixelFormat = AVPixelFormat(rawValue: parameters.format)
        var formatName = "unknown", bitDepth = 8, hasAlpha = false
        var bytesPer64Pixels: Int?
        if let descriptor = av_pix_fmt_desc_get(pixelFormat) {
            formatName = String(cString: descriptor.pointee.name)
            bytesPer64Pixels = Demuxer.bytesPer64Pixels(descriptor)
            bitDepth = Int(descriptor.pointee.comp.0.depth)
            hasAlpha = descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
        }
        // WebM's VP8/VP9 alpha lies beside the picture: the stream says yuv420p, libvpx gives yuva420p.
        if decoder != codec {
            hasAlpha = true
            if formatName == "yuv420p" { formatName = "yuva420p" }
            // libvpx's alpha plane: 8 bits a pixel more.
            bytesPer64Pixels = bytesPer64Pixels.map { $0 + 64 }
        }
        var hasAudio = false
        for i in 0..<Int(context.pointee.nb_streams) where context.pointee.streams[i]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            hasAudio = true
        }
        var read = VideoInfo(
            container: String(cString: context.pointee.iformat.pointee.name),
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            codedWidth: size.width, codedHeight: size.height,
            sampleAspectRatio: (Int(aspect.num), Int(aspect.den)),
            rotation: rotation, duration: duration,
            frameRate: frameRate,
            pixelFormat: formatName, bitDepth: bitDepth,
            frameCount: stream.nb_frames > 0 ? Int(stream.nb_frames) : nil,
            hasAudio: hasAudio, hasAlpha: hasAlpha,
            colorPrimaries: Demuxer.name(av_color_primaries_name(parameters.color_primaries), unless: parameters.color_primaries == AVCOL_PRI_UNSPECIFIED),
            colorTransfer: Demuxer.name(av_color_transfer_name(parameters.color_trc), unless: parameters.color_trc == AVCOL_TRC_UNSPECIFIED),
            colorMatrix: Demuxer.name(av_color_space_name(parameters.color_space), unless: parameters.color_space == AVCOL_SPC_UNSPECIFIED),
            colorRange: Demuxer.name(av_color_range_name(parameters.color_range), unless: parameters.color_range == AVCOL_RANGE_UNSPECIFIED))
        read.decodedBytesPer64Pixels = bytesPer64Pixels
        read.isCoverArt = isCoverArt
        read.startsBeforeZero = stream.start_time != ck_av_nopts_value() && stream.start_time < 0
        // (Not where timestamps may jump, MPEG-TS/PS: their length is read from the packets.)
        read.lengthMayRunPastVideo = duration != nil && !durationIsTheStreams && hasAudio && !isCoverArt
            && !TimestampJumps.applies(to: context.pointee.iformat.pointee)
        info = read
    }

    var stream: UnsafeMutablePointer<AVStream> { format.pointee.streams[Int(streamIndex)]! }

    /// Takes the size of `frame`, the first picture decoded, and its pixel aspect ratio where
    /// the headers gave none (`awaitsFirstPicture`); nothing otherwise. True when `info` changed.
    func adoptGeometry(of frame: UnsafePointer<AVFrame>) -> Bool {
        guard awaitsFirstPicture else { return false }
        awaitsFirstPicture = false
        guard let first = FirstPicture.geometry(of: frame) else { return false }
        var adopted = info
        (adopted.codedWidth, adopted.codedHeight) = (first.width, first.height)
        if !headersGiveAspect, let aspect = first.aspect { adopted.sampleAspectRatio = (Int(aspect.num), Int(aspect.den)) }
        guard adopted != info else { return false }
        info = adopted
        return true
    }

    /// `aspect` unless unknown or absurd (under 1:100 or over 100:1).
    static func plausibleAspect(_ aspect: AVRational) -> AVRational? {
        guard aspect.num > 0, aspect.den > 0 else { return nil }
        let value = Double(aspect.num) / Double(aspect.den)
        return value <= 100 && value >= 0.01 ? aspect : nil
    }

    /// Rewinds `format` to its first byte for a file whose beginning is byte 0 (MPEG-TS/PS, raw
    /// streams): a byte seek, else the bytes themselves with the demuxer's buffers emptied (a
    /// raw stream without timestamps or index may refuse the seek). False when neither works.
    static func rewindBytes(_ format: UnsafeMutablePointer<AVFormatContext>, seekFirst: Bool = true) -> Bool {
        if seekFirst && av_seek_frame(format, -1, 0, AVSEEK_FLAG_BYTE) >= 0 { return true }
        guard let io = format.pointee.pb, avio_seek(io, 0, SEEK_SET) >= 0 else { return false }
        avformat_flush(format)
        return true
    }

    /// The header's length where it is the video's: the stream's own, or the container's when
    /// it holds no audio. A container's length with audio in it can be where the audio ends
    /// (Matroska and WebM give their streams none of their own): a clip whose audio ran 40 ms
    /// past its last frame made a GIF 40 ms longer, its last tick a 4 cs frame of its own.
    var videoDuration: Double? {
        durationIsTheStreams || !info.hasAudio ? info.duration : nil
    }

    /// Opens the file again in place of the open context, positioned at its first packet, as
    /// it was opened first: a seek to the beginning goes by the index, and an index that lists
    /// no keyframe there (a Matroska cut whose first pictures have no timestamp) lands at its
    /// first entry and reports success. The stream keeps its index, codec and size; a file that
    /// no longer opens that way is refused.
    func reopen() throws {
        let owner = try FormatContext(path: path, deadline: deadline)
        let context = owner.pointer
        if probed {
            let status = avformat_find_stream_info(context, nil)
            if status < 0 {
                try deadline.check(path)
                throw ClipKitError.corrupt(path: path, reason: ffmpegMessage(status))
            }
        }
        let old = stream.pointee.codecpar.pointee
        guard streamIndex < Int32(context.pointee.nb_streams), let stream = context.pointee.streams[Int(streamIndex)],
              stream.pointee.codecpar.pointee.codec_id == old.codec_id,
              stream.pointee.codecpar.pointee.width == old.width, stream.pointee.codecpar.pointee.height == old.height else {
            throw ClipKitError.corrupt(path: path, reason: "the file changed while it was read")
        }
        self.context = owner
    }

    static let quietLogs: Void = { av_log_set_level(AV_LOG_QUIET) }()
}

/// FFmpeg's text for an error code.
func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    ck_av_strerror(code, &buffer, buffer.count)
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

extension AVRational {
    var seconds: Double { den == 0 ? 0 : Double(num) / Double(den) }
}
