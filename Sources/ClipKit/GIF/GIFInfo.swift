// Summarises a GIF for `clipkit info`: canvas, frames, loop count, timing and palettes.
import Foundation

public struct GIFInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Images stored in the file.
    public var imageCount: Int
    /// Frames a browser shows (zero-delay images merged into the next).
    public var frameCount: Int
    /// NETSCAPE2.0/ANIMEXTS1.0 loop count (0 = forever), nil when absent (plays once).
    public var loopCount: Int?
    public var durationCentiseconds: Int
    public var minimumDelay: Int
    public var maximumDelay: Int
    /// "global", "local" or "global+local".
    public var paletteKind: String
    public var warnings: [String]

    /// Reads the whole file once, decoding no pixels beyond what palettes need.
    public static func read(_ url: URL, maxPixels: Int = 100_000_000) throws -> GIFInfo {
        let decoder = try GIFDecoder(url: url, maxPixels: maxPixels)
        var delays: [Int] = []
        var local = 0
        while let frame = try decoder.next() {
            delays.append(frame.delay)
            if frame.localPalette != nil { local += 1 }
        }
        let kind: String
        switch (decoder.globalPalette != nil, local) {
        case (true, 0): kind = "global"
        case (false, _): kind = "local"
        default: kind = "global+local"
        }
        return GIFInfo(width: decoder.canvasWidth, height: decoder.canvasHeight, imageCount: delays.count,
                       frameCount: Compositor.displayedFrames(delays: delays).count, loopCount: decoder.loopCount,
                       durationCentiseconds: delays.reduce(0, +), minimumDelay: delays.min() ?? 0,
                       maximumDelay: delays.max() ?? 0, paletteKind: kind, warnings: decoder.warnings)
    }
}
