// Turns RGBAImage pictures into the AVFrames a libavcodec encoder takes: the one RGBA -> YUV (or BGRA) converter.
@_weakLinked import CFFmpeg
import Foundation

/// How RGBA becomes an encoder's YUV: the matrix, the range and libswscale's flags. Each
/// preset is what its stream is tagged with, so decoders show the colours that went in.
struct YUVConversion: Sendable {
    /// libswscale's coefficient set (`SWS_CS_ITU601`, `SWS_CS_ITU709`).
    var coefficients: Int32
    /// Full range (0-255, JFIF) rather than limited (16-235).
    var fullRange: Bool
    var flags: Int32

    /// H.264 in MP4: BT.709 (frames are sRGB, whose primaries are BT.709's), limited range; exact
    /// rounding and no CPU-specific shortcuts, so the same frames make the same file on any machine.
    static let video = YUVConversion(coefficients: SWS_CS_ITU709, fullRange: false, flags: SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT)
    /// A still picture (JPEG in full range, WebP in limited range): BT.601 as every decoder
    /// assumes for them, full chroma input (every pixel counts towards the 4:2:0 chroma, not
    /// every other one).
    static func still(fullRange: Bool) -> YUVConversion {
        YUVConversion(coefficients: SWS_CS_ITU601, fullRange: fullRange, flags: SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP)
    }
}

/// Owns one `SwsContext` and the `AVFrame` it fills. The frame's top-left `width` x `height`
/// pixels of each image are converted: an odd-sized picture for H.264 loses its last column or
/// row (a crop, as `scale=trunc(iw/2)*2:trunc(ih/2)*2` users expect, not a resampling). A packed
/// RGB `format` (BGRA for WebP animations) takes no colour matrix.
final class PictureConverter {
    let width: Int
    let height: Int
    let format: AVPixelFormat
    private var context: OpaquePointer?
    private var frame: UnsafeMutablePointer<AVFrame>?

    init(width: Int, height: Int, format: AVPixelFormat, conversion: YUVConversion = .video, path: String) throws {
        try FFmpegLibraries.load()
        self.width = width
        self.height = height
        self.format = format
        context = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(width), Int32(height), format,
                                 conversion.flags, nil, nil, nil)
        guard let context else {
            throw ClipKitError.internalFailure(path: path, reason: "cannot convert \(width)x\(height) RGBA to pixel format \(format.rawValue)")
        }
        if format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P {
            let matrix = sws_getCoefficients(conversion.coefficients)
            sws_setColorspaceDetails(context, matrix, 1, matrix, conversion.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        }
        guard let frame = av_frame_alloc() else {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        self.frame = frame
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = format.rawValue
        if av_frame_get_buffer(frame, 0) < 0 {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory for a \(width)x\(height) frame")
        }
    }

    deinit {
        if context != nil { sws_freeContext(context) }
        av_frame_free(&frame)
    }

    /// `image` (at least `width` x `height`) in the encoder's format, stamped `pts`. The frame
    /// is reused: it is valid until the next call.
    func frame(from image: RGBAImage, pts: Int64, path: String) throws -> UnsafeMutablePointer<AVFrame> {
        guard let frame, image.width >= width, image.height >= height else {
            throw ClipKitError.internalFailure(path: path, reason: "frame of \(image.width)x\(image.height) for a \(width)x\(height) output")
        }
        // The encoder may still hold a reference to the last picture: then this gets a new buffer.
        if av_frame_make_writable(frame) < 0 {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory for a \(width)x\(height) frame")
        }
        // A copy with slack behind it (`SwscaleBuffers`); the frame is FFmpeg's, padded.
        let padded = SwscaleBuffers.padded(image.pixels)
        let scaled: Int32 = padded.withUnsafeBufferPointer { source in
            var planes: [UnsafePointer<UInt8>?] = [source.baseAddress, nil, nil, nil]
            var data = frame.pointee.data
            var strides = frame.pointee.linesize
            return withUnsafePointer(to: &data) { dataTuple in
                withUnsafePointer(to: &strides) { strideTuple in
                    dataTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { target in
                        strideTuple.withMemoryRebound(to: Int32.self, capacity: 8) { targetStrides in
                            sws_scale(context, &planes, [Int32(image.width * 4), 0, 0, 0], 0, Int32(height), target, targetStrides)
                        }
                    }
                }
            }
        }
        if scaled != height {
            throw ClipKitError.internalFailure(path: path, reason: "pixel conversion failed")
        }
        frame.pointee.pts = pts
        return frame
    }
}
