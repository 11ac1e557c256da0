// Encodes RGBAImage as PNG with libpng's simplified API (no timestamps: same pixels, same bytes).
import CPNG
import Foundation

public enum PNGWriter {
    public enum Channels: Sendable { case rgb, rgba }

    /// PNG bytes for `image`, 8-bit, RGB (alpha dropped) or RGBA.
    public static func encode(_ image: RGBAImage, channels: Channels = .rgba) throws -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw ClipKitError.internalFailure(path: "png", reason: "cannot write an empty image")
        }
        var png = png_image()
        png.version = png_uint_32(ck_png_image_version())
        png.width = png_uint_32(image.width)
        png.height = png_uint_32(image.height)
        png.format = channels == .rgba ? ck_png_format_rgba() : ck_png_format_rgb()
        let components = channels == .rgba ? 4 : 3
        // The simplified API reads rows of `format`; build RGB rows when alpha is dropped.
        var source = image.pixels
        if channels == .rgb {
            var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
            image.pixels.withUnsafeBufferPointer { src in
                rgb.withUnsafeMutableBufferPointer { dst in
                    for i in 0..<(image.width * image.height) {
                        dst[i * 3] = src[i * 4]
                        dst[i * 3 + 1] = src[i * 4 + 1]
                        dst[i * 3 + 2] = src[i * 4 + 2]
                    }
                }
            }
            source = rgb
        }
        let stride = Int32(image.width * components)
        var size: png_alloc_size_t = 0
        // First call measures, second writes.
        let measured = source.withUnsafeBytes { buffer in
            png_image_write_to_memory(&png, nil, &size, 0, buffer.baseAddress, stride, nil)
        }
        guard measured != 0, size > 0 else { throw failure(&png) }
        var output = [UInt8](repeating: 0, count: Int(size))
        let written = output.withUnsafeMutableBytes { out in
            source.withUnsafeBytes { buffer in
                png_image_write_to_memory(&png, out.baseAddress, &size, 0, buffer.baseAddress, stride, nil)
            }
        }
        guard written != 0 else { throw failure(&png) }
        png_image_free(&png)
        return Array(output.prefix(Int(size)))
    }

    /// Writes `image` to `url` atomically (temp file + rename).
    public static func write(_ image: RGBAImage, to url: URL, channels: Channels = .rgba) throws {
        let bytes = try encode(image, channels: channels)
        try AtomicFile.write(bytes, to: url)
    }

    private static func failure(_ png: inout png_image) -> ClipKitError {
        let message = withUnsafeBytes(of: &png.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        png_image_free(&png)
        return .internalFailure(path: "png", reason: "libpng: \(message)")
    }
}
