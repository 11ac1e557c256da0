// Chooses the best N colours for a set of pixels: exact when they fit, else median cut refined by k-means.

/// Builds palettes from colour histograms.
///
/// Colours are counted in a histogram of 5 bits per channel that keeps exact channel sums, so a
/// bin's mean colour is precise. When the distinct colours fit in the palette they are used as
/// they are (lossless). Median cut splits the box with the largest perceptual error
/// along its widest axis, and a few k-means passes move each colour to the mean of the pixels
/// nearest to it. With an `errorTarget`, the splitting stops early once the palette is that
/// close to the pixels: colours the picture does not need are not spent. When median cut runs
/// out of bins, each box one bin and the palette short of `maxColors` (a smooth gradient: a
/// sky, a vignette, a grey ramp), it starts again on the colours counted one by one, while
/// there are at most `countedLimit` (`ColorHistogram.countedColors`): a bin of 8 levels a
/// channel gives one palette colour at most, so a 256-level grey ramp got 32 greys and a
/// diagonal gradient of 709 colours 88, in visible bands. Natural video fills the palette
/// from its bins and is not counted again.
struct Quantizer: Sendable {
    var maxColors: Int
    var refinementPasses: Int
    /// The mean `Palette.distance` from a pixel to its box's colour at which the palette is
    /// close enough: median cut stops splitting there, below `maxColors` (at least 2 colours).
    /// 0 always goes on to `maxColors`. Flat synthetic pictures (screen recordings, slides,
    /// cartoons) reach a small error with few colours and then gain little from more, which
    /// cost bytes; natural video stays far above such a target and keeps every colour.
    var errorTarget: Double

    init(maxColors: Int = 256, errorTarget: Double = 0, refinementPasses: Int = 3) {
        precondition((1...256).contains(maxColors), "a GIF palette holds 1 to 256 colours")
        self.maxColors = maxColors
        self.errorTarget = errorTarget
        self.refinementPasses = refinementPasses
    }

    /// A palette for the pixels of `image` whose `mask` entry is true (all pixels when nil).
    func palette(for image: RGBAImage, mask: [Bool]? = nil) -> Palette {
        var histogram = ColorHistogram()
        histogram.add(image, mask: mask)
        return palette(for: histogram) { ColorHistogram.countedColors(of: image, mask: mask, limit: Self.countedLimit) }
    }

    /// Distinct colours counted one by one, at most: a gradient across a frame has a few
    /// hundred to a few thousand.
    static let countedLimit = 4096

    /// A palette for the colours `histogram` counted; `counted` gives them one by one (nil when
    /// there are too many), asked for only when median cut runs out of bins.
    func palette(for histogram: ColorHistogram, counted: () -> [ColorHistogram.Bin]? = { nil }) -> Palette {
        if let exact = histogram.exactColors, exact.count <= maxColors * 3 {
            return Palette(rgb: exact)
        }
        var bins = histogram.occupiedBins()
        if bins.isEmpty { return Palette(rgb: [0, 0, 0]) }
        var (centers, binLimited) = medianCut(&bins)
        if binLimited, let colors = counted() {
            bins = colors
            centers = medianCut(&bins).centers
        }
        for _ in 0..<refinementPasses { centers = refine(centers, bins: bins) }
        // Sorted by luma so equal inputs give equal tables whatever the split order.
        centers.sort { ($0.0 * 3 + $0.1 * 6 + $0.2) < ($1.0 * 3 + $1.1 * 6 + $1.2) }
        var rgb: [UInt8] = []
        var seen = Set<Int>()
        for c in centers {
            let r = clampByte(c.0), g = clampByte(c.1), b = clampByte(c.2)
            if seen.insert(Int(r) << 16 | Int(g) << 8 | Int(b)).inserted { rgb += [r, g, b] }
        }
        return Palette(rgb: rgb)
    }

    private typealias Center = (Double, Double, Double)

    /// The boxes' mean colours, and whether the palette was left short because every box is a
    /// single bin (`binLimited`: fewer boxes than `maxColors`, none that could be split).
    private func medianCut(_ bins: inout [ColorHistogram.Bin]) -> (centers: [Center], binLimited: Bool) {
        struct Box { var range: Range<Int>; var error: Double; var axis: Int }
        func measure(_ range: Range<Int>) -> Box {
            var n = 0.0, s = (0.0, 0.0, 0.0), q = (0.0, 0.0, 0.0)
            for i in range {
                let bin = bins[i], w = Double(bin.count)
                n += w
                s.0 += bin.r * w; s.1 += bin.g * w; s.2 += bin.b * w
                q.0 += bin.r * bin.r * w; q.1 += bin.g * bin.g * w; q.2 += bin.b * bin.b * w
            }
            // Per-axis squared error, weighted like Palette.distance.
            let e0 = 3 * (q.0 - s.0 * s.0 / n), e1 = 4 * (q.1 - s.1 * s.1 / n), e2 = 2 * (q.2 - s.2 * s.2 / n)
            let axis = e1 >= e0 && e1 >= e2 ? 1 : (e0 >= e2 ? 0 : 2)
            return Box(range: range, error: range.count > 1 ? e0 + e1 + e2 : 0, axis: axis)
        }
        var boxes = [measure(0..<bins.count)]
        // The boxes' summed error, against what the target allows for these pixels.
        var error = boxes[0].error
        let allowed = errorTarget * Double(bins.reduce(0) { $0 + $1.count })
        while boxes.count < maxColors, boxes.count < 2 || error > allowed {
            guard let worst = boxes.indices.max(by: { boxes[$0].error < boxes[$1].error }),
                  boxes[worst].error > 0 else { break }
            let box = boxes[worst]
            let axis = box.axis
            bins[box.range].sort { a, b in
                let va = axis == 0 ? a.r : (axis == 1 ? a.g : a.b)
                let vb = axis == 0 ? b.r : (axis == 1 ? b.g : b.b)
                return va != vb ? va < vb : a.key < b.key
            }
            let total = bins[box.range].reduce(0) { $0 + $1.count }
            var running = 0, split = box.range.lowerBound + 1
            for i in box.range {
                running += bins[i].count
                if running * 2 >= total { split = i + 1; break }
            }
            split = min(max(split, box.range.lowerBound + 1), box.range.upperBound - 1)
            boxes[worst] = measure(box.range.lowerBound..<split)
            boxes.append(measure(split..<box.range.upperBound))
            error += boxes[worst].error + boxes[boxes.count - 1].error - box.error
        }
        let centers = boxes.map { box -> Center in
            var n = 0.0, s = (0.0, 0.0, 0.0)
            for i in box.range {
                let bin = bins[i], w = Double(bin.count)
                n += w; s.0 += bin.r * w; s.1 += bin.g * w; s.2 += bin.b * w
            }
            return (s.0 / n, s.1 / n, s.2 / n)
        }
        return (centers, boxes.count < maxColors && boxes.allSatisfy { $0.range.count == 1 })
    }

    /// One k-means pass over the bins.
    private func refine(_ centers: [Center], bins: [ColorHistogram.Bin]) -> [Center] {
        let search = PaletteSearch(colors: centers.map { (Int($0.0.rounded()), Int($0.1.rounded()), Int($0.2.rounded())) })
        var sums = [(Double, Double, Double, Double)](repeating: (0, 0, 0, 0), count: centers.count)
        for bin in bins {
            let best = search.nearest(Int(bin.r.rounded()), Int(bin.g.rounded()), Int(bin.b.rounded()))
            let w = Double(bin.count)
            sums[best].0 += bin.r * w; sums[best].1 += bin.g * w; sums[best].2 += bin.b * w; sums[best].3 += w
        }
        return centers.indices.map { j in
            sums[j].3 > 0 ? (sums[j].0 / sums[j].3, sums[j].1 / sums[j].3, sums[j].2 / sums[j].3) : centers[j]
        }
    }
}

@inline(__always)
func clampByte(_ value: Double) -> UInt8 {
    UInt8(max(0, min(255, value.rounded())))
}
