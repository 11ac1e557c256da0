// Linear-light RGB planes and their XYB form, the colour space SSIMULACRA2 compares in.
import Foundation

/// A picture as three planes of linear-light RGB (0...1), the form SSIMULACRA2 downsamples in.
struct LinearRGBImage {
    let width: Int
    let height: Int
    /// Planar: all R, then all G, then all B, each `width * height` values, row-major.
    var planes: [Float]

    /// sRGB decoded to linear light per byte value, the exact two-part curve.
    private static let linear: [Float] = (0..<256).map { value in
        let v = Double(value) / 255
        return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
    }

    /// The picture `image` shows; pixels less than half opaque count as black, as a GIF decoder
    /// shows a transparent pixel over nothing (and as `LumaPlane` measures).
    init(_ image: RGBAImage) {
        width = image.width
        height = image.height
        let count = width * height
        var planes = [Float](repeating: 0, count: count * 3)
        Self.linear.withUnsafeBufferPointer { lut in
            image.pixels.withUnsafeBufferPointer { p in
                planes.withUnsafeMutableBufferPointer { out in
                    for i in 0..<count where p[i &* 4 &+ 3] >= 128 {
                        out[i] = lut[Int(p[i &* 4])]
                        out[count &+ i] = lut[Int(p[i &* 4 &+ 1])]
                        out[2 &* count &+ i] = lut[Int(p[i &* 4 &+ 2])]
                    }
                }
            }
        }
        self.planes = planes
    }

    private init(width: Int, height: Int, planes: [Float]) {
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Half the size (rounded up), each pixel the mean of a 2x2 block; a block over the right or
    /// bottom edge repeats the last column or row.
    func halved() -> LinearRGBImage {
        let (w, h) = (width, height)
        let (ow, oh) = ((w + 1) / 2, (h + 1) / 2)
        var out = [Float](repeating: 0, count: ow * oh * 3)
        planes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for c in 0..<3 {
                    let s = src.baseAddress! + c &* w &* h, d = dst.baseAddress! + c &* ow &* oh
                    for oy in 0..<oh {
                        let row0 = s + (2 &* oy) &* w, row1 = s + min(2 &* oy &+ 1, h &- 1) &* w
                        for ox in 0..<ow {
                            let x0 = 2 &* ox, x1 = min(2 &* ox &+ 1, w &- 1)
                            d[oy &* ow &+ ox] = (row0[x0] + row0[x1] + row1[x0] + row1[x1]) * 0.25
                        }
                    }
                }
            }
        }
        return LinearRGBImage(width: ow, height: oh, planes: out)
    }

    /// Writes the picture's XYB planes (X, Y, B, planar) into `xyb`, shifted and scaled to about
    /// 0...1 as SSIMULACRA2 compares them: X * 14 + 0.42, Y + 0.01, (B - Y) + 0.55.
    func writeXYB(into xyb: UnsafeMutablePointer<Float>) {
        let count = width * height
        planes.withUnsafeBufferPointer { src in
            let r = src.baseAddress!, g = r + count, b = g + count
            let outX = xyb, outY = xyb + count, outB = xyb + 2 &* count
            let bias = XYB.bias, biasRoot = XYB.biasCubeRoot
            for i in 0..<count {
                let (lr, lg, lb) = (r[i], g[i], b[i])
                // The opsin absorbance: cone responses, then the cube root as the eye compresses.
                let m0 = max(0.30 * lr + 0.622 * lg + 0.078 * lb + bias, 0)
                let m1 = max(0.23 * lr + 0.692 * lg + 0.078 * lb + bias, 0)
                let m2 = max(XYB.m20 * lr + XYB.m21 * lg + XYB.m22 * lb + bias, 0)
                let c0 = XYB.cubeRoot(m0) - biasRoot, c1 = XYB.cubeRoot(m1) - biasRoot, c2 = XYB.cubeRoot(m2) - biasRoot
                let y = 0.5 * (c0 + c1)
                outX[i] = 0.5 * (c0 - c1) * 14 + 0.42
                outY[i] = y + 0.01
                outB[i] = (c2 - y) + 0.55
            }
        }
    }
}

/// The constants of JPEG XL's XYB (its opsin absorbance matrix and bias).
private enum XYB {
    static let m20: Float = 0.24342268924547819
    static let m21: Float = 0.20476744424496821
    static let m22: Float = 1 - m20 - m21
    static let bias: Float = 0.0037930732552754493
    static let biasCubeRoot: Float = cubeRoot(bias)

    /// The cube root of `x` >= 0 to float precision: a guess from the exponent bits, then two
    /// Halley steps (each triples the correct digits), several times faster than `cbrtf`.
    @inline(__always)
    static func cubeRoot(_ x: Float) -> Float {
        if x <= 0 { return 0 }
        var y = Float(bitPattern: x.bitPattern / 3 &+ 0x2A51_4067)
        for _ in 0..<2 {
            let y3 = y * y * y
            y *= (y3 + 2 * x) / (2 * y3 + x)
        }
        return y
    }
}
