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

    /// The factor of each pixel of the image `lossy` describes (`indices`, `mask` applied, in
    /// rows of `lossy.imageWidth`), in sixteenths. A transparent pixel shows the canvas under
    /// it; over an unknown canvas it counts as matching its neighbours.
    static func factors(indices: UnsafeBufferPointer<UInt8>, mask: UInt8, lossy: LZWLossy) -> [UInt8] {
        let n = indices.count
        let width = max(lossy.imageWidth, 1)
        let height = n / width
        var factors = [UInt8](repeating: UInt8(lowest), count: n)
        guard height > 0 else { return factors }
        // Each pixel's colour once, and whether it is known (4 bytes: R, G, B, known).
        let rgbk = UnsafeMutablePointer<UInt8>.allocate(capacity: n * 4)
        defer { rgbk.deallocate() }
        let palette = lossy.palette
        let paletteCount = palette.count / 3
        let transparent = lossy.transparentIndex ?? -1
        for y in 0..<height {
            let canvasRow = ((lossy.top + y) * lossy.canvasWidth + lossy.left) * 3
            for x in 0..<width {
                let k = y * width + x
                let i = Int(indices[k] & mask)
                let p = rgbk + k * 4
                if i == transparent {
                    if let canvas = lossy.canvas {
                        let o = canvasRow + x * 3
                        p[0] = canvas[o]; p[1] = canvas[o + 1]; p[2] = canvas[o + 2]; p[3] = 1
                    } else {
                        p[0] = 0; p[1] = 0; p[2] = 0; p[3] = 0
                    }
                } else if i < paletteCount {
                    p[0] = palette[i * 3]; p[1] = palette[i * 3 + 1]; p[2] = palette[i * 3 + 2]; p[3] = 1
                } else {
                    p[0] = 0; p[1] = 0; p[2] = 0; p[3] = 1
                }
            }
        }
        // The distance of each pixel to its right and lower neighbours, each pair once; the
        // contrast of a pixel is the largest of its (up to) four.
        @inline(__always) func distance(_ a: Int, _ b: Int) -> Int {
            let p = rgbk + a * 4, q = rgbk + b * 4
            guard p[3] & q[3] != 0 else { return 0 }
            return LZWEncoder.distance(Int(p[0]) - Int(q[0]), Int(p[1]) - Int(q[1]), Int(p[2]) - Int(q[2]))
        }
        factors.withUnsafeMutableBufferPointer { factors in
            let above = UnsafeMutablePointer<Int>.allocate(capacity: width)  // to the pixel above, per column
            defer { above.deallocate() }
            above.initialize(repeating: 0, count: width)
            for y in 0..<height {
                var left = 0
                for x in 0..<width {
                    let k = y * width + x
                    let right = x + 1 < width ? distance(k, k + 1) : 0
                    let below = y + 1 < height ? distance(k, k + width) : 0
                    let contrast = max(max(left, right), max(above[x], below))
                    above[x] = below
                    left = right
                    let f = Int(Double(contrast).squareRoot() * Double(one) / Double(unitContrast))
                    factors[k] = UInt8(min(max(f, lowest), highest))
                }
            }
        }
        return factors
    }
}
