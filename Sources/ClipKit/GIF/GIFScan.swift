// What a pass over a GIF's blocks tells without decoding pixels: timing, frames, loop, palettes, declared cost.

/// A GIF's structure, read by `GIFDecoder.scan(deadline:)` without decoding any pixels.
public struct GIFScan: Sendable, Equatable {
    public var canvasWidth: Int
    public var canvasHeight: Int
    /// The stored delay of each image, in centiseconds.
    public var delays: [Int] = []
    /// Whether each image has a graphic control extension (always, in a GIF87a file).
    public var controlled: [Bool] = []
    /// The images (by index) that form each displayed frame: zero-delay images are shown together
    /// with the next image that has a delay, and images without a graphic control extension
    /// with the ones before them (`Compositor.displayedFrames(delays:controlled:)`).
    public var frames: [Range<Int>] = []
    /// NETSCAPE2.0/ANIMEXTS1.0 loop count (0 = forever), nil when absent (plays once).
    public var loopCount: Int?
    public var hasGlobalPalette: Bool
    /// Images with a local colour table.
    public var localPaletteCount = 0
    /// Images whose indices mean other colours than the first table's (the global one, else the
    /// first local one): 0 when one table would serve every image.
    public var ownPaletteCount = 0
    /// The colour table bytes the images read against, each image its own (local, else global):
    /// what a table an image would cost.
    public var tableBytes = 0
    /// The sum of every image's declared area: what decoding and compositing will cost,
    /// whatever the file's size.
    public var declaredPixels = 0
    /// Whether any displayed pixel can be transparent: an image has a transparent index before
    /// an opaque one covered the canvas, one clears to the (transparent) background, or the first
    /// image leaves part of the canvas undrawn,
    /// by its place or because its data gives fewer pixels than it declares (counted with the
    /// LZW codes, until an image covers the canvas).
    public var mayBeTransparent = false
    /// Damage met while scanning (a missing trailer, a truncated block).
    public var warnings: [String] = []

    public var imageCount: Int { delays.count }

    /// How long each displayed frame is shown, in centiseconds, as browsers play it: a frame
    /// whose delays add up to under 2 cs lasts 10 cs.
    public var frameDelays: [Int] {
        frames.map { Self.playedDelay($0.reduce(0) { $0 + delays[$1] }) }
    }

    /// Browsers play delays under 2 cs as 10 cs.
    public static func playedDelay(_ centiseconds: Int) -> Int { centiseconds < 2 ? 10 : centiseconds }
}
