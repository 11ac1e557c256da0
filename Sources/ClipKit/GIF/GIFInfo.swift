// Summarises a GIF for `clipkit info`: canvas, frames, loop count, timing and palettes.
import Foundation

/// What `clipkit info` says of a GIF, read from its blocks without decoding pixels.
public struct GIFInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Images stored in the file.
    public var imageCount: Int
    /// Frames a browser shows (zero-delay images merged into the next).
    public var frameCount: Int
    /// NETSCAPE2.0/ANIMEXTS1.0 loop count (0 = forever), nil when absent (plays once).
    public var loopCount: Int?
    /// The sum of the stored delays.
    public var durationCentiseconds: Int
    /// How long browsers play one loop: a frame whose delays add up to under 2 cs lasts 10 cs.
    /// This is the length `gif`, `thumb --at` and `--max-duration` use.
    public var playedDurationCentiseconds: Int
    public var minimumDelay: Int
    public var maximumDelay: Int
    /// "global", "local" or "global+local".
    public var paletteKind: String
    public var warnings: [String]

    /// Reads the file's blocks once without decoding any pixels, under `limits` (canvas size, and
    /// the deadline of `limits.started()`).
    public static func read(_ url: URL, limits: Limits = Limits()) throws -> GIFInfo {
        let decoder = try GIFDecoder(url: url, maxPixels: limits.maxPixels)
        let scan = try decoder.scan(deadline: limits.deadline)
        // What `gif`, `thumb` and `explode` refuse, `info` refuses too.
        guard !scan.frames.isEmpty else { throw ClipKitError.noFrames(path: url.path, reason: "the GIF has no images") }
        let kind: String
        switch (scan.hasGlobalPalette, scan.localPaletteCount) {
        case (true, 0): kind = "global"
        case (false, _): kind = "local"
        default: kind = "global+local"
        }
        return GIFInfo(width: scan.canvasWidth, height: scan.canvasHeight, imageCount: scan.imageCount,
                       frameCount: scan.frames.count, loopCount: scan.loopCount,
                       durationCentiseconds: scan.delays.reduce(0, +), playedDurationCentiseconds: scan.frameDelays.reduce(0, +),
                       minimumDelay: scan.delays.min() ?? 0,
                       maximumDelay: scan.delays.max() ?? 0, paletteKind: kind, warnings: scan.warnings)
    }
}
