// The single-picture file formats ClipKit writes sheets in: JPEG and WebP through libavcodec, PNG through PNGWriter.

/// A still-image file format.
public enum StillImageFormat: String, Sendable, CaseIterable {
    /// JPEG (JFIF, 4:2:0, full range), by libavcodec's `mjpeg` encoder.
    case jpeg = "jpg"
    /// Lossy WebP (4:2:0), by libavcodec's `libwebp` encoder.
    case webp
    /// PNG (RGB, or RGBA when a pixel is transparent), by ClipKit's own `PNGWriter`.
    case png

    /// The file name extension, without the dot: `jpg`, `webp`, `png`.
    public var fileExtension: String { rawValue }

    /// The libavcodec encoder that writes this format; nil for PNG.
    var encoderName: String? {
        switch self {
        case .jpeg: return "mjpeg"
        case .webp: return "libwebp"
        case .png: return nil
        }
    }

    /// The largest width or height the format can store: JPEG's 16-bit size fields, libwebp's
    /// `WEBP_MAX_DIMENSION`; PNG's 31-bit ones are limited by memory long before.
    public var maxDimension: Int {
        switch self {
        case .jpeg: return 65_535
        case .webp: return 16_383
        case .png: return 1 << 30
        }
    }

    /// The format for a name as users type it: `jpg`, `jpeg`, `webp` or `png` (any case).
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        case "png": self = .png
        default: return nil
        }
    }
}
