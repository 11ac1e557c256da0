// 8-bit luma of a picture, the plane SSIM is measured on.

/// One byte of luma per pixel, row-major. BT.601 weights on full-range RGB, as FFmpeg turns
/// `rgb24` into `gray` (so clipkit's figures and an FFmpeg-based measurement share one
/// conversion). Pixels less than half opaque count as black, as a GIF decoder shows a
/// transparent pixel over nothing.
public struct LumaPlane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var values: [UInt8]

    public init(width: Int, height: Int, values: [UInt8]) {
        precondition(width >= 0 && height >= 0 && values.count == width * height, "luma buffer does not match size")
        self.width = width
        self.height = height
        self.values = values
    }

    /// The luma of `image`.
    public init(_ image: RGBAImage) {
        let count = image.width * image.height
        var values = [UInt8](repeating: 0, count: count)
        image.pixels.withUnsafeBufferPointer { p in
            values.withUnsafeMutableBufferPointer { out in
                for i in 0..<count where p[i &* 4 &+ 3] >= 128 {
                    out[i] = Self.luma(p[i &* 4], p[i &* 4 &+ 1], p[i &* 4 &+ 2])
                }
            }
        }
        self.init(width: image.width, height: image.height, values: values)
    }

    /// Y = 0.299 R + 0.587 G + 0.114 B, rounded (15-bit fixed point, like swscale's).
    @inline(__always)
    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (9798 &* Int(r) &+ 19235 &* Int(g) &+ 3735 &* Int(b) &+ 16384) >> 15)
    }
}
