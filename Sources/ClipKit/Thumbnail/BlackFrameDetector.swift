// Tells frames that are almost uniformly black or white (fades, leaders, flashes) from real content.

enum BlackFrameDetector {
    /// True when the picture is almost uniformly black or white: the brightest channel of each
    /// pixel averages under 32 (black), or the darkest over 223 (white), with little spread
    /// (standard deviation under 12 on 0...255). A solid dark blue is not black.
    static func isBlank(_ image: RGBAImage) -> Bool {
        let count = image.width * image.height
        guard count > 0 else { return true }
        var high = Statistics(), low = Statistics()
        // Every pixel of a thumbnail-sized frame is cheap; sample larger ones.
        let step = max(1, count / 65536)
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < count {
                let o = i * 4
                let r = p[o], g = p[o + 1], b = p[o + 2]
                high.add(Double(max(r, g, b)))
                low.add(Double(min(r, g, b)))
                i += step
            }
        }
        return (high.mean < 32 && high.deviation < 12) || (low.mean > 223 && low.deviation < 12)
    }

    private struct Statistics {
        var n = 0.0, sum = 0.0, sumSquares = 0.0
        mutating func add(_ value: Double) { n += 1; sum += value; sumSquares += value * value }
        var mean: Double { sum / n }
        var deviation: Double { max(sumSquares / n - mean * mean, 0).squareRoot() }
    }
}
