// How far the colour seen from a little way off is from the source: shared by the dithering and conversion tests.
@testable import ClipKit

enum BlockMeanError {
    /// The mean over 8x8 blocks (and RGB) of |block mean of `shown` - block mean of `source|`
    /// (two images of one size).
    static func between(_ source: RGBAImage, _ shown: RGBAImage) -> Double {
        let w = source.width, h = source.height
        var total = 0.0, blocks = 0
        for by in stride(from: 0, to: h - 7, by: 8) {
            for bx in stride(from: 0, to: w - 7, by: 8) {
                for k in 0..<3 {
                    var s = 0, o = 0
                    for y in by..<(by + 8) {
                        for x in bx..<(bx + 8) {
                            let i = (y * w + x) * 4 + k
                            s += Int(source.pixels[i])
                            o += Int(shown.pixels[i])
                        }
                    }
                    total += abs(Double(s - o)) / 64
                    blocks += 1
                }
            }
        }
        return total / Double(blocks)
    }

    /// The same for palette indices covering the whole of `source`.
    static func between(_ source: RGBAImage, _ palette: Palette, _ indices: [UInt8]) -> Double {
        let pixels = indices.flatMap { i -> [UInt8] in let c = palette.color(Int(i)); return [c.r, c.g, c.b, 255] }
        return between(source, RGBAImage(width: source.width, height: source.height, pixels: pixels))
    }
}
