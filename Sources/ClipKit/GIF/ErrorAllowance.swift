// How much colour error lossy LZW may put on each pixel: little where the picture is flat, more where it is busy.

/// Per-pixel scale of lossy LZW's error bound, from the contrast around each pixel (visual
/// masking): a stray colour on a flat area (a dark terminal, a sky) is a speck anyone sees, the
/// same error among edges and texture is hidden by them. Each pixel's factor (in sixteenths)
/// scales both how far its colour may stray (`LZWLossy.bound`) and, inversely, what an error
/// there costs in the search for the string to write.
///
/// The contrast is the largest weighted squared RGB distance (`LZWEncoder.distance`) from the
/// colour the pixel is meant to show to its four neighbours' (what shows through a transparent
/// pixel, over a known canvas); the factor is its square root over `unitContrast`, between
/// `lowest` and `highest`. Measured with bench/rd_eval.py over `--quality` 25-95 on its four
/// clips (BD-rate at equal SSIMULACRA2 against one bound for every pixel): 720p -1.5%, 1080p
/// -5.2%, screen -8.6%, natural -10.8%; against recipe + gifsicle -O3 --lossy, screen -24.1% ->
/// -28.5%, natural -16.2% -> -24.5%. Looked at on the screen recording at `--quality 75`: the
/// specks lossy LZW sprinkled over the terminal's black are gone at the same bytes. Scaling the
/// bound alone (errors costing the same everywhere) gained about half as much and cost the 720p
/// clip 5%; a floor of 0.25 gained the screen 1 point more and cost 720p 4-12%; a ceiling of 2
/// to 6 moved the screen and natural clips in opposite directions by 1-4%.
struct ErrorAllowance {
    /// Contrast (root of the weighted squared distance, in RGB levels) at which a pixel takes
    /// the bound as given.
    static let unitContrast = 20
    /// Factors in sixteenths: half the bound on flat areas, three times it on busy ones.
    static let lowest = 8
    static let highest = 48
    static let one = 16

    /// `x * one / factor` rounded down, for 0 <= x < 2^24 (a squared colour distance; under
    /// 2^28 once times `one`), without a division: times the factor's `multipliers` entry, exact
    /// in that range (Granlund and Montgomery: m = ceil(2^(28 + 6) / d) for d < 2^6); past it, divided.
    /// (A division was the costliest step of the lossy search, one for every string it scores.)
    @inline(__always)
    static func scaled(_ x: Int, by factor: Int, multiplier: UInt64) -> Int {
        let y = x &* one
        guard UInt(bitPattern: y) < 1 << 28 else { return y / factor }
        return Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: y) &* multiplier) >> 34)
    }

    /// ceil(2^34 / d) for each factor d up to `highest` (0 for 0, never used): see `scaled`.
    static let multipliers: [UInt64] = (0...highest).map { $0 == 0 ? 0 : ((1 << 34) + UInt64($0) - 1) / UInt64($0) }

    /// The factor of each contrast below the one that reaches `highest` (past it, `highest`):
    /// the root over `unitContrast`, in sixteenths, clamped.
    static let factorTable: [UInt8] = {
        let top = unitContrast * highest / one
        return (0..<top * top).map { contrast in
            let f = Int(Double(contrast).squareRoot() * Double(one) / Double(unitContrast))
            return UInt8(min(max(f, lowest), highest))
        }
    }()

    /// The factor of each pixel of the image `lossy` describes (`indices`, `mask` applied, in
    /// rows of `lossy.imageWidth`), in sixteenths. A transparent pixel shows the canvas under
    /// it; over an unknown canvas it counts as matching its neighbours.
    static func factors(indices: UnsafeBufferPointer<UInt8>, mask: UInt8, lossy: LZWLossy) -> [UInt8] {
        let n = indices.count
        let width = max(lossy.imageWidth, 1)
        let height = n / width
        var factors = [UInt8](repeating: UInt8(lowest), count: n)
        guard height > 0 else { return factors }
        // Two rows of colours at a time, 4 bytes a pixel (R, G, B, whether known): the row and the
        // one below it, so the encoder's memory stays a byte a pixel more, whatever the image.
        var row = [UInt8](repeating: 0, count: width * 4), below = row
        let palette = lossy.palette
        let paletteCount = palette.count / 3
        let transparent = lossy.transparentIndex ?? -1
        func fill(_ out: inout [UInt8], row y: Int) {
            let canvasRow = ((lossy.top + y) * lossy.canvasWidth + lossy.left) * 3
            let canvas = lossy.canvas
            out.withUnsafeMutableBufferPointer { out in
                let indexRow = indices.baseAddress! + y * width
                for x in 0..<width {
                    let i = Int(indexRow[x] & mask)
                    let p = x &* 4
                    if i == transparent {
                        if let canvas {
                            let o = canvasRow &+ x &* 3
                            out[p] = canvas[o]; out[p &+ 1] = canvas[o &+ 1]; out[p &+ 2] = canvas[o &+ 2]; out[p &+ 3] = 1
                        } else {
                            out[p] = 0; out[p &+ 1] = 0; out[p &+ 2] = 0; out[p &+ 3] = 0
                        }
                    } else if i < paletteCount {
                        out[p] = palette[i &* 3]; out[p &+ 1] = palette[i &* 3 &+ 1]; out[p &+ 2] = palette[i &* 3 &+ 2]; out[p &+ 3] = 1
                    } else {
                        out[p] = 0; out[p &+ 1] = 0; out[p &+ 2] = 0; out[p &+ 3] = 1
                    }
                }
            }
        }
        // The distance between two pixels' colours (0 when either is unknown).
        @inline(__always) func distance(_ a: UnsafeBufferPointer<UInt8>, _ i: Int, _ b: UnsafeBufferPointer<UInt8>, _ j: Int) -> Int {
            guard a[i + 3] & b[j + 3] != 0 else { return 0 }
            return LZWEncoder.distance(Int(a[i]) - Int(b[j]), Int(a[i + 1]) - Int(b[j + 1]), Int(a[i + 2]) - Int(b[j + 2]))
        }
        // Each pair of neighbours once: the distance to the right and to the pixel below; a
        // pixel's contrast is the largest of its (up to) four. (Unsafe buffers, a table for the
        // root: this pass was 6% of a lossy encode's time with the root and checked subscripts.
        // Row y of `indices` and of `factors` lies within them: y < height = n / width.)
        var above = [Int](repeating: 0, count: width)
        let table = Self.factorTable
        fill(&row, row: 0)
        for y in 0..<height {
            if y + 1 < height { fill(&below, row: y + 1) }
            let hasBelow = y + 1 < height
            row.withUnsafeBufferPointer { here in
                below.withUnsafeBufferPointer { next in
                    above.withUnsafeMutableBufferPointer { above in
                        factors.withUnsafeMutableBufferPointer { factors in
                            let out = factors.baseAddress! + y * width
                            var left = 0
                            for x in 0..<width {
                                let right = x + 1 < width ? distance(here, x &* 4, here, x &* 4 &+ 4) : 0
                                let down = hasBelow ? distance(here, x &* 4, next, x &* 4) : 0
                                let contrast = max(max(left, right), max(above[x], down))
                                above[x] = down
                                left = right
                                out[x] = contrast < table.count ? table[contrast] : UInt8(highest)
                            }
                        }
                    }
                }
            }
            swap(&row, &below)
        }
        return factors
    }
}
