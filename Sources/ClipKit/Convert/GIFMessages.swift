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
    /// The source frame's luma, for the writer's measurement (`GIFOptions.measure`); nil when
    /// not measuring.
    var sourceLuma: LumaPlane?
    /// The source frame itself, for the writer's SSIMULACRA2 (with `sourceLuma`).
    var sourceImage: RGBAImage?
}

typealias QuantizedMessage = StreamMessage<QuantizedFrame>
