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

    /// The factor of each weighted squared distance (`LZWEncoder.weightedSquare`, three times the
    /// contrast before rounding down) below the one that reaches `highest` (past it, `highest`):
    /// the root of the contrast over `unitContrast`, in sixteenths, clamped.
    static let factorTable: [UInt8] = {
        let top = unitContrast * highest / one
        return (0..<3 * top * top).map { weighted in
            let f = Int(Double(weighted / 3).squareRoot() * Double(one) / Double(unitContrast))
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
        guard height > 0 else { return [UInt8](repeating: UInt8(lowest), count: n) }
        // Each index's colour packed in 32 bits: R, G, B, and 1 in the top byte when known
        // (black past the palette; the transparent index's, what shows through, is read per
        // pixel from the canvas: unknown without one).
        let palette = lossy.palette
        let paletteCount = palette.count / 3
        let transparent = lossy.transparentIndex ?? -1
        let canvas = lossy.canvas
        var packed = [UInt32](repeating: 1 << 24, count: 256)
        for i in 0..<min(paletteCount, 256) {
            packed[i] = UInt32(palette[i * 3]) | UInt32(palette[i * 3 + 1]) << 8 | UInt32(palette[i * 3 + 2]) << 16 | 1 << 24
        }
        let seeThrough = (0..<256).contains(transparent)
        if seeThrough, canvas == nil { packed[transparent] = 0 }
        let colors = packed
        // Two rows of packed colours at a time: the row and the one below it, so the encoder's
        // memory stays a byte a pixel more, whatever the image; the largest weighted distance
        // of each pixel of the row to the one below (what the row below has above it).
        let rows = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * width)
        let above = UnsafeMutablePointer<Int>.allocate(capacity: width)
        defer { rows.deallocate(); above.deallocate() }
        above.initialize(repeating: 0, count: width)
        func fill(_ out: UnsafeMutablePointer<UInt32>, row y: Int) {
            let indexRow = indices.baseAddress! + y * width
            colors.withUnsafeBufferPointer { colors in
                for x in 0..<width { out[x] = colors[Int(indexRow[x] & mask)] }
            }
            guard seeThrough, let canvas else { return }
            let canvasRow = ((lossy.top + y) * lossy.canvasWidth + lossy.left) * 3
            for x in 0..<width where Int(indexRow[x] & mask) == transparent {
                let o = canvasRow + x * 3
                out[x] = UInt32(canvas[o]) | UInt32(canvas[o + 1]) << 8 | UInt32(canvas[o + 2]) << 16 | 1 << 24
            }
        }
        // The weighted squared distance between two pixels' colours (0 when either is unknown,
        // or both are the same: most neighbours, on a screen recording).
        // Wrapping arithmetic: differences of bytes, at most 9 * 255² in all.
        @inline(__always) func weighted(_ a: UInt32, _ b: UInt32) -> Int {
            guard a != b, (a & b) >> 24 != 0 else { return 0 }
            let dr = Int(a & 0xFF) &- Int(b & 0xFF), dg = Int(a >> 8 & 0xFF) &- Int(b >> 8 & 0xFF)
            let db = Int(a >> 16 & 0xFF) &- Int(b >> 16 & 0xFF)
            return LZWEncoder.weightedSquare(dr, dg, db)
        }
        // Each pair of neighbours once: the distance to the right and to the pixel below; a
        // pixel's contrast is the largest of its (up to) four, and the table is indexed by the
        // weighted distance (rounding down the largest is the largest rounded down). (Packed
        // colours, unsafe buffers, a table for the root: this pass was 6% of a lossy encode's
        // time with the root and checked subscripts, 4% with four bytes a pixel and a division per
        // neighbour. Row y of `indices` and of `factors` lies within them: y < height = n / width.)
        let table = Self.factorTable
        var here = rows, next = rows + width
        fill(here, row: 0)
        let factors = [UInt8](unsafeUninitializedCapacity: n) { out, count in
            table.withUnsafeBufferPointer { table in
                for y in 0..<height {
                    let hasBelow = y + 1 < height
                    if hasBelow { fill(next, row: y + 1) }
                    let row = out.baseAddress! + y * width
                    var left = 0
                    for x in 0..<width {
                        let right = x + 1 < width ? weighted(here[x], here[x + 1]) : 0
                        let down = hasBelow ? weighted(here[x], next[x]) : 0
                        let contrast = max(max(left, right), max(above[x], down))
                        above[x] = down
                        left = right
                        row[x] = contrast < table.count ? table[contrast] : UInt8(highest)
                    }
                    swap(&here, &next)
                }
                // Pixels past the last full row (none when n is a multiple of the width).
                for i in height * width..<n { out[i] = UInt8(lowest) }
            }
            count = n
        }
        return factors
    }
}
