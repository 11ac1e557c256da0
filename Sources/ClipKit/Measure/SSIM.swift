// Structural similarity of two luma planes, in FFmpeg's (x264's) formulation.

/// SSIM as FFmpeg's `ssim` filter computes it: sums over 4x4 blocks, 8x8 windows on a 4-pixel
/// grid, integer arithmetic up to the final ratio, the mean over the windows. A plane under 8
/// pixels on a side is one window over the whole of it.
public enum SSIM {
    private static let c1 = 416      // (0.01 * 255)^2 * 64, rounded
    private static let c2 = 235963   // (0.03 * 255)^2 * 64 * 63, rounded

    /// The SSIM of `a` and `b` (same size), 1 for identical planes.
    public static func of(_ a: LumaPlane, _ b: LumaPlane) -> Double {
        precondition(a.width == b.width && a.height == b.height, "SSIM of planes of different sizes")
        let (w, h) = (a.width, a.height)
        guard w > 0, h > 0 else { return 1 }
        return a.values.withUnsafeBufferPointer { pa in
            b.values.withUnsafeBufferPointer { pb in
                w < 8 || h < 8 ? whole(pa, pb, count: w * h) : windows(pa, pb, width: w, height: h)
            }
        }
    }

    /// Block sums of one row of 4x4 blocks: s1, s2, a²+b², a·b.
    private struct BlockRow {
        var s1: [Int], s2: [Int], ss: [Int], s12: [Int]
        init(count: Int) {
            s1 = [Int](repeating: 0, count: count); s2 = s1; ss = s1; s12 = s1
        }
    }

    private static func sums(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, width: Int,
                             blockRow by: Int, into row: inout BlockRow) {
        let blocks = row.s1.count
        row.s1.withUnsafeMutableBufferPointer { s1 in
        row.s2.withUnsafeMutableBufferPointer { s2 in
        row.ss.withUnsafeMutableBufferPointer { ss in
        row.s12.withUnsafeMutableBufferPointer { s12 in
            for bx in 0..<blocks {
                var t1 = 0, t2 = 0, tss = 0, t12 = 0
                for y in (by &* 4)..<(by &* 4 &+ 4) {
                    let base = y &* width &+ bx &* 4
                    for x in base..<(base &+ 4) {
                        let va = Int(a[x]), vb = Int(b[x])
                        t1 &+= va; t2 &+= vb
                        tss &+= va &* va &+ vb &* vb
                        t12 &+= va &* vb
                    }
                }
                s1[bx] = t1; s2[bx] = t2; ss[bx] = tss; s12[bx] = t12
            }
        }}}}
    }

    private static func windows(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> Double {
        let bw = width / 4, bh = height / 4
        var above = BlockRow(count: bw), below = BlockRow(count: bw)
        sums(a, b, width: width, blockRow: 0, into: &above)
        var total = 0.0
        for by in 1..<bh {
            sums(a, b, width: width, blockRow: by, into: &below)
            for bx in 0..<(bw - 1) {
                let s1 = above.s1[bx] &+ above.s1[bx &+ 1] &+ below.s1[bx] &+ below.s1[bx &+ 1]
                let s2 = above.s2[bx] &+ above.s2[bx &+ 1] &+ below.s2[bx] &+ below.s2[bx &+ 1]
                let ss = above.ss[bx] &+ above.ss[bx &+ 1] &+ below.ss[bx] &+ below.ss[bx &+ 1]
                let s12 = above.s12[bx] &+ above.s12[bx &+ 1] &+ below.s12[bx] &+ below.s12[bx &+ 1]
                total += ratio(s1: s1, s2: s2, ss: ss, s12: s12)
            }
            swap(&above, &below)
        }
        return total / Double((bw - 1) * (bh - 1))
    }

    /// The window formula on sums over 64 pixels.
    @inline(__always)
    private static func ratio(s1: Int, s2: Int, ss: Int, s12: Int) -> Double {
        let variance = ss &* 64 &- s1 &* s1 &- s2 &* s2
        let covariance = s12 &* 64 &- s1 &* s2
        let numerator = Double(2 &* s1 &* s2 &+ c1) * Double(2 &* covariance &+ c2)
        let denominator = Double(s1 &* s1 &+ s2 &* s2 &+ c1) * Double(variance &+ c2)
        return numerator / denominator
    }

    /// One window over a small plane: its sums scaled to 64 pixels.
    private static func whole(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, count: Int) -> Double {
        var s1 = 0.0, s2 = 0.0, ss = 0.0, s12 = 0.0
        for i in 0..<count {
            let va = Double(a[i]), vb = Double(b[i])
            s1 += va; s2 += vb; ss += va * va + vb * vb; s12 += va * vb
        }
        let k = 64 / Double(count)
        s1 *= k; s2 *= k; ss *= k; s12 *= k
        let variance = ss * 64 - s1 * s1 - s2 * s2
        let covariance = s12 * 64 - s1 * s2
        return (2 * s1 * s2 + Double(c1)) * (2 * covariance + Double(c2)) / ((s1 * s1 + s2 * s2 + Double(c1)) * (variance + Double(c2)))
    }
}
