// Measures one small frame for the poster picker: blankness, sharpness, detail, colour and a tiny signature.
import Foundation

/// What the poster picker knows about one candidate frame, measured once at the analysis size
/// (`PosterPicker.analysisSize`, about 160 px wide) on luma Y = (54 R + 183 G + 19 B) / 256
/// (BT.709 weights). Measures depend on the picture's size, so candidates are always compared
/// at the same one.
struct FrameFeatures: Sendable {
    /// Presentation time, seconds from the stream start.
    let time: Double
    /// Almost uniformly black or white (`BlackFrameDetector`), or flat (luma deviation under 2).
    let isBlank: Bool
    /// Standard deviation of the 4-neighbour Laplacian of luma over the inner pixels: edges and
    /// fine texture give large values, blur and flat areas small ones.
    let laplacianDeviation: Double
    /// Shannon entropy of the 256-bin luma histogram, in bits (0...8).
    let entropy: Double
    /// Hasler and Suesstrunk's colourfulness: sqrt(var(rg) + var(yb)) + 0.3 sqrt(mean(rg)^2 + mean(yb)^2),
    /// rg = R - G, yb = (R + G) / 2 - B; 0 for grey, about 100 for very colourful pictures.
    let colourfulness: Double
    /// Mean luma of each cell of a `signatureSide` x `signatureSide` grid: what two frames are
    /// compared by (fades, cuts, near-duplicates).
    let signature: [UInt8]

    static let signatureSide = 16

    init(image: RGBAImage, time: Double) {
        self.time = time
        let width = image.width, height = image.height, count = width * height
        var luma = [UInt8](repeating: 0, count: count)
        var histogram = [Int](repeating: 0, count: 256)
        let side = Self.signatureSide
        var cellSums = [Int](repeating: 0, count: side * side)
        var cellCounts = [Int](repeating: 0, count: side * side)
        var rgSum = 0.0, rgSquares = 0.0, ybSum = 0.0, ybSquares = 0.0
        var lumaSum = 0.0, lumaSquares = 0.0
        image.pixels.withUnsafeBufferPointer { p in
            luma.withUnsafeMutableBufferPointer { y in
                for row in 0..<height {
                    let cellRow = row * side / max(height, 1) * side
                    for column in 0..<width {
                        let i = row * width + column, o = i * 4
                        let r = Int(p[o]), g = Int(p[o + 1]), b = Int(p[o + 2])
                        let value = (54 * r + 183 * g + 19 * b) >> 8
                        y[i] = UInt8(value)
                        histogram[value] += 1
                        let cell = cellRow + column * side / max(width, 1)
                        cellSums[cell] += value
                        cellCounts[cell] += 1
                        let rg = Double(r - g), yb = Double(r + g) / 2 - Double(b)
                        rgSum += rg; rgSquares += rg * rg
                        ybSum += yb; ybSquares += yb * yb
                        lumaSum += Double(value); lumaSquares += Double(value * value)
                    }
                }
            }
        }
        let n = Double(max(count, 1))
        let lumaMean = lumaSum / n
        let lumaDeviation = max(lumaSquares / n - lumaMean * lumaMean, 0).squareRoot()
        isBlank = count == 0 || lumaDeviation < 2 || BlackFrameDetector.isBlank(image)

        var entropy = 0.0
        for bin in histogram where bin > 0 {
            let share = Double(bin) / n
            entropy -= share * log2(share)
        }
        self.entropy = entropy

        let rgMean = rgSum / n, ybMean = ybSum / n
        let rgVariance = max(rgSquares / n - rgMean * rgMean, 0), ybVariance = max(ybSquares / n - ybMean * ybMean, 0)
        colourfulness = (rgVariance + ybVariance).squareRoot() + 0.3 * (rgMean * rgMean + ybMean * ybMean).squareRoot()

        laplacianDeviation = Self.laplacianDeviation(luma, width: width, height: height)
        signature = (0..<side * side).map { UInt8(cellSums[$0] / max(cellCounts[$0], 1)) }
    }

    /// How different two frames look, 0...1: the mean absolute difference of their signatures
    /// over the range of luma. A fade step, a cut or motion raise it; a re-encoded copy of the
    /// same picture stays near 0.
    func difference(from other: FrameFeatures) -> Double {
        var total = 0
        for (a, b) in zip(signature, other.signature) { total += abs(Int(a) - Int(b)) }
        return Double(total) / Double(max(signature.count, 1)) / 255
    }

    private static func laplacianDeviation(_ luma: [UInt8], width: Int, height: Int) -> Double {
        guard width >= 3, height >= 3 else { return 0 }
        var sum = 0.0, squares = 0.0
        luma.withUnsafeBufferPointer { y in
            for row in 1..<(height - 1) {
                for column in 1..<(width - 1) {
                    let i = row * width + column
                    let value = 4 * Int(y[i]) - Int(y[i - 1]) - Int(y[i + 1]) - Int(y[i - width]) - Int(y[i + width])
                    sum += Double(value)
                    squares += Double(value * value)
                }
            }
        }
        let n = Double((width - 2) * (height - 2))
        let mean = sum / n
        return max(squares / n - mean * mean, 0).squareRoot()
    }
}
