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

    /// Blurs `input` (`width` x `height`, row-major) into `output`; `scratch` (width x height)
    /// holds the rows' pass.
    func blur(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
              scratch: UnsafeMutablePointer<Float>, width: Int, height: Int) {
        // Along rows, eight rows at a time (one per vector lane), then down the columns, eight
        // columns at a time; what is left over one lane at a time. Lanes are independent, so
        // the figures are the same either way; debug builds (the tests) go one lane at a time,
        // since unoptimised SIMD code is many times slower than plain floats.
        var y = 0
        while Self.wide, y + Self.laneCount <= height {
            recurse(Lanes.self, count: width, stride: 1, lanes: width, input + y &* width, scratch + y &* width)
            y += Self.laneCount
        }
        for row in y..<height { recurse(count: width, stride: 1, input + row &* width, scratch + row &* width) }
        var x = 0
        while Self.wide, x + Self.laneCount <= width {
            recurse(Lanes.self, count: height, stride: width, lanes: 1, scratch + x, output + x)
            x += Self.laneCount
        }
        for column in x..<width { recurse(count: height, stride: width, scratch + column, output + column) }
    }

    typealias Lanes = SIMD8<Float>
    private static let laneCount = 8
    #if DEBUG
    private static let wide = false
    #else
    private static let wide = true
    #endif

    /// The three recursions along one line of `count` values `stride` apart, for as many
    /// parallel lines as `V` has lanes, lane k's line starting `k * lanes` values further on.
    @inline(__always)
    private func recurse<V: Vectorish>(_: V.Type, count: Int, stride: Int, lanes: Int,
                                       _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        let n = radius
        let (a1, a3, a5) = (V(n2.0), V(n2.1), V(n2.2)), (b1, b3, b5) = (V(d1.0), V(d1.1), V(d1.2))
        var p1 = V(0), p3 = V(0), p5 = V(0), q1 = V(0), q3 = V(0), q5 = V(0)
        for i in (1 &- n)..<count {
            let left = i &- n &- 1, right = i &+ n &- 1
            var sum = V(0)
            if left >= 0 { sum += V.load(input + left &* stride, lanes: lanes) }
            if right < count { sum += V.load(input + right &* stride, lanes: lanes) }
            let o1 = a1 * sum - b1 * p1 - q1
            let o3 = a3 * sum - b3 * p3 - q3
            let o5 = a5 * sum - b5 * p5 - q5
            q1 = p1; q3 = p3; q5 = p5
            p1 = o1; p3 = o3; p5 = o5
            if i >= 0 { (o1 + o3 + o5).store(output + i &* stride, lanes: lanes) }
        }
    }

    /// One line alone: `recurse(_:...)` on plain floats, written out so that debug builds
    /// need no generic calls.
    private func recurse(count: Int, stride: Int, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        let n = radius
        var p1: Float = 0, p3: Float = 0, p5: Float = 0, q1: Float = 0, q3: Float = 0, q5: Float = 0
        for i in (1 &- n)..<count {
            let left = i &- n &- 1, right = i &+ n &- 1
            var sum: Float = 0
            if left >= 0 { sum += input[left &* stride] }
            if right < count { sum += input[right &* stride] }
            let o1 = n2.0 * sum - d1.0 * p1 - q1
            let o3 = n2.1 * sum - d1.1 * p3 - q3
            let o5 = n2.2 * sum - d1.2 * p5 - q5
            q1 = p1; q3 = p3; q5 = p5
            p1 = o1; p3 = o3; p5 = o5
            if i >= 0 { output[i &* stride] = o1 + o3 + o5 }
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

/// A vector of floats, loaded from and stored to lanes `lanes` values apart.
protocol Vectorish {
    init(_ value: Float)
    static func + (a: Self, b: Self) -> Self
    static func += (a: inout Self, b: Self)
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func load(_ pointer: UnsafePointer<Float>, lanes: Int) -> Self
    func store(_ pointer: UnsafeMutablePointer<Float>, lanes: Int)
}

extension SIMD8: Vectorish where Scalar == Float {
    init(_ value: Float) { self.init(repeating: value) }

    @inline(__always) static func load(_ pointer: UnsafePointer<Float>, lanes: Int) -> SIMD8<Float> {
        if lanes == 1 { return UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self) }
        return SIMD8(pointer[0], pointer[lanes], pointer[2 &* lanes], pointer[3 &* lanes],
                     pointer[4 &* lanes], pointer[5 &* lanes], pointer[6 &* lanes], pointer[7 &* lanes])
    }

    @inline(__always) func store(_ pointer: UnsafeMutablePointer<Float>, lanes: Int) {
        if lanes == 1 { UnsafeMutableRawPointer(pointer).storeBytes(of: self, as: SIMD8<Float>.self); return }
        for k in 0..<8 { pointer[k &* lanes] = self[k] }
    }
}
