// An animated input's own loop count, which its GIF keeps unless --loop or --no-loop says otherwise.
import Foundation

extension GIFOptions {
    /// These options with `loopCount` set to the loop of `input` when it is an animation that
    /// has one of its own (as gifsicle keeps a GIF's): a GIF's NETSCAPE2.0 count, or nil when it
    /// has no loop extension (it plays once); an animated PNG's `acTL` plays, 0 (forever) as 0
    /// and N plays as N - 1 repeats (1 play: nil). Videos, still pictures, and GIFs whose blocks
    /// cannot be read (their conversion says why) leave `loopCount` as it is. Reads a GIF's
    /// blocks without decoding pixels, within `limits`.
    public func withLoopCount(of input: URL) -> GIFOptions {
        var options = self
        if let loop = Self.sourceLoop(of: input, limits: limits) { options.loopCount = loop.count }
        return options
    }

    /// An animation's own loop: `count` as a GIF's NETSCAPE2.0 count (nil: plays once).
    struct SourceLoop: Equatable {
        var count: Int?
    }

    /// The loop `input` has of its own (`withLoopCount(of:)`); nil when it has none to keep.
    static func sourceLoop(of input: URL, limits: Limits) -> SourceLoop? {
        if GIFFrameSource.isGIF(input) {
            guard let decoder = try? GIFDecoder(url: input, maxPixels: limits.maxPixels),
                  let scan = try? decoder.scan(deadline: limits.started().deadline) else { return nil }
            return SourceLoop(count: scan.loopCount)
        }
        guard let plays = PNGReader.plays(input) else { return nil }
        return SourceLoop(count: plays == 0 ? 0 : plays == 1 ? nil : min(plays - 1, 65535))
    }
}
