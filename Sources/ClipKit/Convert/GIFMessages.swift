// The values that travel between GIF pipeline stages: one named type per hop.

/// decode -> quantise (and the other sinks): the decoder's `VideoFrame` in a `StreamMessage`.
typealias DecodedMessage = StreamMessage<VideoFrame>

/// quantise -> write: an image ready for the encoder, still without its delay (the writer knows
/// it once the next frame's time, or the end, arrives). `isUnchanged` frames only extend the
/// previous delay.
struct QuantizedFrame: Sendable {
    var frame: GIFFrame
    /// Output time in seconds.
    var time: Double
    var isUnchanged: Bool
    /// The source frame's luma, for the measure stage (`GIFOptions.measure`, `GIFMeterStage`),
    /// which the writer feeds; nil when not measuring.
    var sourceLuma: LumaPlane?
    /// The source frame itself, for the measure stage's SSIMULACRA2 (with `sourceLuma`).
    var sourceImage: RGBAImage?
}

typealias QuantizedMessage = StreamMessage<QuantizedFrame>

/// write -> quantise, under lossy LZW: what the viewer sees after each image the writer was
/// given (not `isUnchanged`), in bands of rows as they are written, so that the quantiser can
/// dither the next frame's rows once those rows are final, while the writer encodes the rest.
/// Each image gives some `rows`, top to bottom, then `done`; or `unknown` (after any rows).
enum ShownReport: Sendable {
    /// The canvas over `rect` (RGB, row by row), final: rows of the image just written.
    case rows(PixelRect, [UInt8])
    /// The image is written: every row of it has been reported.
    case done
    /// What the viewer sees after this image is not known (the encoder stopped following it).
    case unknown

    /// Bands an image is reported in, at most (plus the `done`): the feedback queue holds one
    /// image's reports, so the writer never waits for the quantiser, whatever either waits for.
    static let bandsPerImage = 8
    /// The feedback queue's capacity: one image's reports, no more pixels than one canvas.
    static let queueCapacity = bandsPerImage + 1

    /// Rows per band for an image `height` rows high.
    static func bandRows(height: Int) -> Int { max(1, (height + bandsPerImage - 1) / bandsPerImage) }
}
