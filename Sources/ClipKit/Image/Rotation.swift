// The orientation a display matrix asks for: quarter turns and mirrors, applied to decoded pixels.
import Foundation

/// How decoded pixels map to the upright picture: an orthogonal 2x2 matrix with entries -1, 0 or 1,
/// in FFmpeg's display-matrix convention (row vector times matrix, y pointing down):
/// `x' = a*x + c*y`, `y' = b*x + d*y`.
public struct Rotation: Sendable, Equatable, CustomStringConvertible {
    public let a: Int, b: Int, c: Int, d: Int

    public static let identity = Rotation(a: 1, b: 0, c: 0, d: 1)

    init(a: Int, b: Int, c: Int, d: Int) {
        (self.a, self.b, self.c, self.d) = (a, b, c, d)
    }

    /// A clockwise rotation by a multiple of 90 degrees, optionally preceded by a horizontal mirror.
    public init(clockwiseDegrees degrees: Int, mirrored: Bool = false) {
        let q = (((degrees / 90) % 4) + 4) % 4
        let turns: [(Int, Int, Int, Int)] = [(1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0)]
        var (a, b, c, d) = turns[q]
        if mirrored { a = -a; b = -b }  // mirror x first: (x, y) -> (-x, y)
        self.init(a: a, b: b, c: c, d: d)
    }

    /// What an EXIF orientation (1-8, `JPEGOrientation`) asks for: 2 mirrors left to right, 3
    /// turns half a turn, 4 mirrors top to bottom, 5 transposes (the rows become the columns),
    /// 6 turns a quarter clockwise, 7 transposes across the other diagonal, 8 turns a quarter
    /// anticlockwise; anything else leaves the picture as it is.
    public init(exifOrientation orientation: Int) {
        let matrices: [Int: (Int, Int, Int, Int)] = [2: (-1, 0, 0, 1), 3: (-1, 0, 0, -1), 4: (1, 0, 0, -1), 5: (0, 1, 1, 0),
                                                     6: (0, 1, -1, 0), 7: (0, -1, -1, 0), 8: (0, -1, 1, 0)]
        let (a, b, c, d) = matrices[orientation] ?? (1, 0, 0, 1)
        self.init(a: a, b: b, c: c, d: d)
    }

    /// Reads an FFmpeg display matrix (nine fixed-point values, row-major). Angles are snapped to
    /// quarter turns, as the ffmpeg CLI's autorotate does.
    public init(displayMatrix m: [Int32]) {
        // Each column is normalised by its own length first, as av_display_rotation_get does: a
        // track matrix combined with a scaled movie matrix (x scaled 2, y 1) is still a quarter turn.
        let scale0 = max(hypot(Double(m[0]), Double(m[3])), 1), scale1 = max(hypot(Double(m[1]), Double(m[4])), 1)
        let fa = Double(m[0]) / scale0, fc = Double(m[3]) / scale0, fb = Double(m[1]) / scale1, fd = Double(m[4]) / scale1
        let snap = { (v: Double) -> Int in abs(v) * 2 > 1 ? (v > 0 ? 1 : -1) : 0 }
        var a = snap(fa), b = snap(fb), c = snap(fc), d = snap(fd)
        // Not a quarter turn or mirror (a degenerate matrix, a 45-degree turn, a shear): leave the
        // pixels alone, as ffmpeg's autorotate does. A signed permutation has one non-zero entry
        // in each row and column; anything else would map pixels outside the picture.
        let isSignedPermutation = abs(a * d - b * c) == 1 && a * b == 0 && c * d == 0 && a * c == 0 && b * d == 0
        if !isSignedPermutation { (a, b, c, d) = (1, 0, 0, 1) }
        self.init(a: a, b: b, c: c, d: d)
    }

    /// True when width and height trade places.
    public var swapsAxes: Bool { a == 0 }
    /// True when the picture is mirrored (negative determinant).
    public var isMirrored: Bool { a * d - b * c < 0 }
    /// The clockwise angle, as `ffmpeg -i` reports "rotation" (0, 90, 180 or 270).
    public var degrees: Int {
        let angle = Int((atan2(Double(b), Double(a)) * 180 / .pi).rounded())
        return ((angle % 360) + 360) % 360
    }
    public var description: String { isMirrored ? "\(degrees) mirrored" : "\(degrees)" }

    /// The upright size of a `width` x `height` picture.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Where upright pixel (x, y) comes from in the decoded picture.
    @inline(__always)
    func sourcePoint(x: Int, y: Int, outputWidth ow: Int, outputHeight oh: Int) -> (Int, Int) {
        let tx = (a + c) < 0 ? x - (ow - 1) : x
        let ty = (b + d) < 0 ? y - (oh - 1) : y
        // The inverse of an orthogonal matrix is its transpose.
        return (a * tx + b * ty, c * tx + d * ty)
    }
}
