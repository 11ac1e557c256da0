// The frame type every stage passes around: 8-bit RGBA pixels, row-major, no padding.

/// An 8-bit RGBA image, row-major with no row padding. Value type; copies share storage until written.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A for each pixel.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4, "pixel buffer does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A transparent (0,0,0,0) image.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 4))
    }

    /// True when every pixel is fully opaque (then RGB is enough to store it).
    public var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { p in !stride(from: 3, to: p.count, by: 4).contains { p[$0] != 255 } }
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// This image turned upright by `rotation` (quarter turns and mirrors), as a display applies it.
    public func applying(_ rotation: Rotation) -> RGBAImage {
        if rotation == .identity { return self }
        let (w, h) = (width, height)
        let (ow, oh) = rotation.outputSize(width: w, height: h)
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                let s = UnsafeRawPointer(src.baseAddress!).assumingMemoryBound(to: UInt32.self)
                let d = UnsafeMutableRawPointer(dst.baseAddress!).assumingMemoryBound(to: UInt32.self)
                for y in 0..<oh {
                    for x in 0..<ow {
                        let (sx, sy) = rotation.sourcePoint(x: x, y: y, outputWidth: ow, outputHeight: oh)
                        d[y * ow + x] = s[sy * w + sx]
                    }
                }
            }
        }
        return RGBAImage(width: ow, height: oh, pixels: out)
    }
}
