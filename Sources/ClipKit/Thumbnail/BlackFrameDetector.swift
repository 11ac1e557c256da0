// Tells frames that are almost uniformly black or white (fades, leaders, flashes) from real content.

public enum BlackFrameDetector {
    /// True when nearly all of the picture is one dark or one bright level: a mean luma below
    /// 32 or above 223 with little spread (standard deviation under 12, on 0...255).
    public static func isBlank(_ image: RGBAImage) -> Bool {
        let count = image.width * image.height
        guard count > 0 else { return true }
        var sum = 0.0, sumSquares = 0.0
        // Every pixel of a thumbnail-sized frame is cheap; sample larger ones.
        let step = max(1, count / 65536)
        var n = 0.0
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < count {
                let o = i * 4
                let luma = 0.299 * Double(p[o]) + 0.587 * Double(p[o + 1]) + 0.114 * Double(p[o + 2])
                sum += luma
                sumSquares += luma * luma
                n += 1
                i += step
            }
        }
        let mean = sum / n
        let deviation = (max(sumSquares / n - mean * mean, 0)).squareRoot()
        return deviation < 12 && (mean < 32 || mean > 223)
    }
}
