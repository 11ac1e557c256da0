// The Gaussian blur SSIMULACRA2 measures with: a recursive (IIR) approximation, zero outside the image.
import Foundation

/// A Gaussian blur as the JPEG XL project's SSIMULACRA2 blurs (Charalampidis 2016, "Recursive
/// Implementation of the Gaussian Filter Using Truncated Cosine Functions"): three second-order
/// recursions summed, run along rows and then along columns, with the picture taken as zero
/// outside its edges. The cost per pixel does not depend on sigma, and the scores the metric's
/// weights were tuned on were made with this filter (not an exact Gaussian), so it is kept.
struct RecursiveGaussian {
    /// The half-width N of the truncated cosines: each output reads inputs n - N - 1 and n + N - 1.
    let radius: Int
    /// Input weights of the three recursions (n2 in the paper's (33)).
    private let n2: (Float, Float, Float)
    /// Feedback weights of the three recursions (d1 in (33)).
    private let d1: (Float, Float, Float)

    init(sigma: Double) {
        let radius = (3.2795 * sigma + 0.2546).rounded()
        let step = Double.pi / (2 * radius)
        let omega = [step, 3 * step, 5 * step]
        let p = [1 / tan(0.5 * omega[0]), -1 / tan(0.5 * omega[1]), 1 / tan(0.5 * omega[2])]
        let r = [p[0] * p[0] / sin(omega[0]), -p[1] * p[1] / sin(omega[1]), p[2] * p[2] / sin(omega[2])]
        let rho = omega.map { exp(-0.5 * sigma * sigma * $0 * $0) / radius }
        let d13 = p[0] * r[1] - r[0] * p[1]
        let d35 = p[1] * r[2] - r[1] * p[2]
        let d51 = p[2] * r[0] - r[2] * p[0]
        let zeta15 = d35 / d13, zeta35 = d51 / d13
        // beta solves A beta = gamma: the weights that make the sum a normalised Gaussian of sigma.
        let a = [[p[0], p[1], p[2]], [r[0], r[1], r[2]], [zeta15, zeta35, 1]]
        let gamma = [1, radius * radius - sigma * sigma, zeta15 * rho[0] + zeta35 * rho[1] + rho[2]]
        let beta = Self.solve(a, gamma)
        let n2 = (0..<3).map { Float(-beta[$0] * cos(omega[$0] * (radius + 1))) }
        let d1 = (0..<3).map { Float(-2 * cos(omega[$0])) }
        self.radius = Int(radius)
        self.n2 = (n2[0], n2[1], n2[2])
        self.d1 = (d1[0], d1[1], d1[2])
    }

    /// Blurs `input` (`width` x `height`, row-major) into `output`; `scratch` holds the rows'
    /// pass and `state` (7 x width) the column recursions. All are at least width x height.
    func blur(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
              scratch: UnsafeMutablePointer<Float>, state: UnsafeMutablePointer<Float>, width: Int, height: Int) {
        for y in 0..<height {
            blurRow(input + y &* width, into: scratch + y &* width, count: width)
        }
        blurColumns(scratch, into: output, state: state, width: width, height: height)
    }

    private func blurRow(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, count: Int) {
        let n = radius
        var prev1: Float = 0, prev3: Float = 0, prev5: Float = 0
        var prev21: Float = 0, prev23: Float = 0, prev25: Float = 0
        for i in (1 &- n)..<count {
            let left = i &- n &- 1, right = i &+ n &- 1
            let sum = (left >= 0 ? input[left] : 0) + (right < count ? input[right] : 0)
            let out1 = n2.0 * sum - d1.0 * prev1 - prev21
            let out3 = n2.1 * sum - d1.1 * prev3 - prev23
            let out5 = n2.2 * sum - d1.2 * prev5 - prev25
            prev21 = prev1; prev23 = prev3; prev25 = prev5
            prev1 = out1; prev3 = out3; prev5 = out5
            if i >= 0 { output[i] = out1 + out3 + out5 }
        }
    }

    /// The same recursions down every column at once, a row at a time (rows are contiguous).
    /// `state` holds six rows of recursion state and a seventh of zeros that stands for the rows
    /// outside the image.
    private func blurColumns(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
                             state: UnsafeMutablePointer<Float>, width: Int, height: Int) {
        let n = radius
        state.initialize(repeating: 0, count: 7 &* width)
        let p1 = state, p3 = state + width, p5 = state + 2 &* width
        let q1 = state + 3 &* width, q3 = state + 4 &* width, q5 = state + 5 &* width
        let zero = UnsafePointer(state + 6 &* width)
        let (a1, a3, a5) = n2, (b1, b3, b5) = d1
        for row in (1 &- n)..<height {
            let top = row &- n &- 1, bottom = row &+ n &- 1
            let above = top >= 0 ? input + top &* width : zero
            let below = bottom < height ? input + bottom &* width : zero
            // Rows above the first only warm the recursions up: they write into the first
            // output row, which row 0 then overwrites.
            let out = output + max(row, 0) &* width
            for x in 0..<width {
                let sum = above[x] + below[x]
                let o1 = a1 * sum - b1 * p1[x] - q1[x]
                let o3 = a3 * sum - b3 * p3[x] - q3[x]
                let o5 = a5 * sum - b5 * p5[x] - q5[x]
                q1[x] = p1[x]; q3[x] = p3[x]; q5[x] = p5[x]
                p1[x] = o1; p3[x] = o3; p5[x] = o5
                out[x] = o1 + o3 + o5
            }
        }
    }

    /// Solves a 3x3 linear system by Cramer's rule (the matrix is well conditioned for sigma 1.5).
    private static func solve(_ a: [[Double]], _ b: [Double]) -> [Double] {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let whole = det(a)
        return (0..<3).map { column in
            det(a.enumerated().map { row, values in values.enumerated().map { $0.offset == column ? b[row] : $0.element } }) / whole
        }
    }
}
