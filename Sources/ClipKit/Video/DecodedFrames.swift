// Decoded source pictures one pass kept (before scaling), for the passes after it to scale again
// instead of decoding again.
@_weakLinked import CFFmpeg

/// The pictures a `FrameDecoder` emitted, as it decoded them (before scaling), with the output
/// places each filled: everything a later pass needs to make the same frames at any size without
/// demuxing or decoding (`DecodedFramesReplay`). Up to `budget` bytes of picture buffers; past
/// it the recording is cut and its pictures freed. Owns one reference to each picture
/// (`av_frame_clone`), freed on deinit. Not shared: it moves (`sending`) from the pass that
/// records or replays it to `FrameCache` and on to the next pass.
final class DecodedFrames {
    /// The source as the decoder saw it (size, rotation, frame rate, duration) and whether its
    /// palettes carry alpha: the replay scales with the same settings.
    struct Source {
        let info: VideoInfo
        let keepsPaletteAlpha: Bool
    }

    /// One decoded picture and where it is shown; and the picture as the pass that decoded it
    /// scaled it, at that pass's size, while the budget has room for it.
    struct Picture {
        let frame: UnsafeMutablePointer<AVFrame>
        let places: [FrameSampler.Emission]
        let sourceTime: Double
        var scaled: (size: FrameSize, image: RGBAImage)?

        /// The picture at `size`: the one kept when it is that size, else scaled by `scaler`
        /// (as the decoder would: the same frame, info and settings give the same bytes).
        func image(at size: FrameSize, info: VideoInfo, scaler: Scaler) throws -> RGBAImage {
            if let scaled, scaled.size == size { return scaled.image }
            return try scaler.uprightImage(from: frame, info: info, size: size)
        }
    }

    private(set) var pictures: [Picture] = []
    /// Bytes of the picture buffers kept.
    private(set) var bytes = 0
    /// Bytes of the scaled pictures kept: within the budget with `bytes`, and dropped (all of
    /// them) before a decoded picture would be. The `--max-bytes` pass after the first took 4.5%
    /// of a fit's instructions scaling again the pictures the first had scaled at the same size
    /// (the screen cut at 75% of its default's size: 0.34 of 7.5 G).
    private(set) var scaledBytes = 0
    /// Whether scaled pictures are still kept (not once they have been dropped for room).
    private var keepsScaled = true
    let budget: Int
    /// Set by the decoder that records (a producer that does not leaves the recording incomplete).
    var source: Source?
    /// The end message's duration (source seconds, before `speed`), once the stream ended.
    private(set) var duration: Double?
    /// The end message's warnings (what the source was decoded around), once the stream ended.
    private(set) var warnings: [String] = []
    /// A picture passed the budget: nothing is kept.
    private(set) var isCut = false

    init(budget: Int) {
        self.budget = budget
    }

    deinit { free() }

    /// Every picture of the stream and its end are here.
    var isComplete: Bool { duration != nil && source != nil && !isCut }

    /// Keeps a reference to `frame`, shown at `places`.
    func keep(_ frame: UnsafePointer<AVFrame>, at places: [FrameSampler.Emission], sourceTime: Double) {
        guard !isCut else { return }
        var size = 0
        withUnsafeBytes(of: frame.pointee.buf) { buffers in
            for buffer in buffers.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self) {
                if let buffer { size += Int(buffer.pointee.size) }
            }
        }
        if bytes + scaledBytes + size > budget { dropScaled() }
        guard bytes + size <= budget, let copy = av_frame_clone(frame) else {
            isCut = true
            free()
            return
        }
        bytes += size
        pictures.append(Picture(frame: copy, places: places, sourceTime: sourceTime))
    }

    /// Keeps `image`, the last picture kept as scaled to `size`, when the budget has room.
    func keepScaled(_ image: RGBAImage, size: FrameSize) {
        guard keepsScaled, !isCut, !pictures.isEmpty, pictures[pictures.count - 1].scaled == nil,
              bytes + scaledBytes + image.pixels.count <= budget else { return }
        pictures[pictures.count - 1].scaled = (size, image)
        scaledBytes += image.pixels.count
    }

    private func dropScaled() {
        for i in pictures.indices { pictures[i].scaled = nil }
        scaledBytes = 0
        keepsScaled = false
    }

    /// The stream ended; `duration` is the end message's, before `speed`, and `warnings` its own.
    func finish(duration: Double, warnings: [String]) {
        if !isCut { (self.duration, self.warnings) = (duration, warnings) }
    }

    private func free() {
        for picture in pictures {
            var frame: UnsafeMutablePointer<AVFrame>? = picture.frame
            av_frame_free(&frame)
        }
        pictures = []
        bytes = 0
        scaledBytes = 0
    }
}

/// Makes a pass's frames from a complete `DecodedFrames`: each picture scaled and turned as the
/// `FrameDecoder` that decoded it would have, queued at the same places, then the same end. The
/// frames are those of a decode, byte for byte, at whatever size the pass asks.
enum DecodedFramesReplay {
    /// The frames expected, as the decoder counted them (its guess from the header, not the
    /// recording's count: a pass projects its size as it would have without the recording).
    static func expectedCount(_ source: DecodedFrames.Source, options: FrameReadOptions) -> Int? {
        options.expectedCount(duration: source.info.duration, frameRate: source.info.frameRate)
    }

    static func run(_ frames: DecodedFrames, options: FrameReadOptions, path: String, into output: inout FrameOutput) throws {
        guard let source = frames.source, let duration = frames.duration else {
            throw ClipKitError.internalFailure(path: path, reason: "an incomplete recording was replayed")
        }
        let scaler = Scaler()
        scaler.keepsPaletteAlpha = source.keepsPaletteAlpha
        for picture in frames.pictures {
            try options.limits.checkDeadline(path)
            let image = try picture.image(at: options.size, info: source.info, scaler: scaler)
            if !output.push(image, at: picture.places, sourceTime: picture.sourceTime) { return }
        }
        output.end(duration: duration, warnings: frames.warnings)
    }
}
