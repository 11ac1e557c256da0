// The buffers SSIMULACRA2 works in at one scale, and its per-channel error maps and their norms.

/// Planes for one scale of SSIMULACRA2, allocated once at the largest scale and reused across
/// scales, and across pictures by a caller that scores many of one size (the GIF meter).
final class SSIMULACRA2Workspace {
    let capacity: Int
    private var width = 0, height = 0
    /// X, Y, B of the reference, then of the distorted picture.
    private let reference: UnsafeMutablePointer<Float>
    private let distorted: UnsafeMutablePointer<Float>
    /// mu1, mu2, sigma11, sigma22, sigma12, the product to blur, the row pass.
    private let planes: UnsafeMutablePointer<Float>
    private let blur = RecursiveGaussian(sigma: 1.5)
    private static let kC2: Float = 0.0009

    init(pixels: Int) {
        capacity = pixels
        reference = .allocate(capacity: 3 * capacity)
        distorted = .allocate(capacity: 3 * capacity)
        planes = .allocate(capacity: 7 * capacity)
    }

    deinit {
        reference.deallocate()
        distorted.deallocate()
        planes.deallocate()
    }

    /// Takes the two pictures of this scale (as large as the first at most) in XYB.
    func load(_ ref: LinearRGBImage, _ dist: LinearRGBImage) {
        precondition(ref.width * ref.height <= capacity, "scale larger than the workspace")
        (width, height) = (ref.width, ref.height)
        ref.writeXYB(into: reference)
        dist.writeXYB(into: distorted)
    }

    /// The six norms of one channel: the 1-norms of 1 - SSIM, ringing and lost detail, then
    /// their 4-norms. A map whose two weights are zero is not made (its norms read 0): at full
    /// scale that leaves out most of the blurring for X and B.
    func norms(channel: Int, weights: ArraySlice<Double>) -> [Double] {
        let w = Array(weights)
        let count = width * height
        let one = reference + channel * count, two = distorted + channel * count
        let mu1 = planes, mu2 = planes + count, s11 = planes + 2 * count, s22 = planes + 3 * count
        let s12 = planes + 4 * count, product = planes + 5 * count, scratch = planes + 6 * count
        let needsSSIM = w[0] != 0 || w[3] != 0
        let needsEdges = w[1] != 0 || w[4] != 0 || w[2] != 0 || w[5] != 0
        guard needsSSIM || needsEdges else { return [0, 0, 0, 0, 0, 0] }
        blurred(one, into: mu1, scratch: scratch)
        blurred(two, into: mu2, scratch: scratch)
        let perPixel = 1 / Double(count)
        var figures = [Double](repeating: 0, count: 6)
        if needsSSIM {
            multiply(one, one, into: product, count: count)
            blurred(product, into: s11, scratch: scratch)
            multiply(two, two, into: product, count: count)
            blurred(product, into: s22, scratch: scratch)
            multiply(one, two, into: product, count: count)
            blurred(product, into: s12, scratch: scratch)
            var sum = 0.0, sum4 = 0.0
            // Per pixel in Float, summed a row at a time in Float and the rows in Double: the
            // loop vectorises, and the sums stay as exact as libjxl's (all in Double) to ~1e-6.
            for y in 0..<height {
                var rowSum: Float = 0, rowSum4: Float = 0
                for i in (y &* width)..<(y &* width &+ width) {
                    let m1 = mu1[i], m2 = mu2[i]
                    // SSIM without the luminance term's denominator: XYB is already perceptual,
                    // so errors in darks need no extra weight.
                    let numM: Float = 1 - (m1 - m2) * (m1 - m2)
                    let numS = 2 * (s12[i] - m1 * m2) + Self.kC2
                    let denS = (s11[i] - m1 * m1) + (s22[i] - m2 * m2) + Self.kC2
                    let d = max(1 - numM * numS / denS, 0)
                    rowSum += d
                    rowSum4 += (d * d) * (d * d)
                }
                sum += Double(rowSum)
                sum4 += Double(rowSum4)
            }
            figures[0] = sum * perPixel
            figures[3] = (sum4 * perPixel).squareRoot().squareRoot()
        }
        if needsEdges {
            var artifact = 0.0, artifact4 = 0.0, lost = 0.0, lost4 = 0.0
            for y in 0..<height {
                var rowArtifact: Float = 0, rowArtifact4: Float = 0, rowLost: Float = 0, rowLost4: Float = 0
                for i in (y &* width)..<(y &* width &+ width) {
                    // Above 0: the distorted picture has an edge where the reference is smooth;
                    // below: the reference has one the distorted picture smoothed away.
                    let d = (1 + abs(two[i] - mu2[i])) / (1 + abs(one[i] - mu1[i])) - 1
                    let up = max(d, 0), down = max(-d, 0)
                    rowArtifact += up
                    rowArtifact4 += (up * up) * (up * up)
                    rowLost += down
                    rowLost4 += (down * down) * (down * down)
                }
                artifact += Double(rowArtifact); artifact4 += Double(rowArtifact4)
                lost += Double(rowLost); lost4 += Double(rowLost4)
            }
            figures[1] = artifact * perPixel
            figures[4] = (artifact4 * perPixel).squareRoot().squareRoot()
            figures[2] = lost * perPixel
            figures[5] = (lost4 * perPixel).squareRoot().squareRoot()
        }
        return figures
    }

    private func blurred(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
                         scratch: UnsafeMutablePointer<Float>) {
        blur.blur(input, into: output, scratch: scratch, width: width, height: height)
    }

    private func multiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                          into out: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { out[i] = a[i] * b[i] }
    }
}
