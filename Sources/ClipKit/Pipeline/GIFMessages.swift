// The values that travel between GIF pipeline stages: one named type per hop.

/// Reader -> quantiser: an upright, scaled source frame and its output time in seconds.
public struct SourceFrame: Sendable {
    public var image: RGBAImage
    public var time: Double

    public init(image: RGBAImage, time: Double) {
        self.image = image
        self.time = time
    }
}

/// Quantiser -> writer: an image ready for giflib, still without its delay (the writer knows it
/// once the next frame's time arrives). `isUnchanged` frames only extend the previous delay.
struct QuantizedFrame: Sendable {
    var frame: GIFFrame
    var time: Double
    var isUnchanged: Bool
}
