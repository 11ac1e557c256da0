// Converts decoded AVFrames of any pixel format to RGBAImage at a chosen size with libswscale.
@_weakLinked import CFFmpeg
import Foundation

/// Owns one `SwsContext`, recreated only when the input format or size changes.
final class Scaler {
    private var context: OpaquePointer?
    private struct Key: Equatable {
        var width, height, format, outWidth, outHeight, space, range: Int32
    }
    private var key: Key?
    /// Whether a PAL8 frame's palette alpha is real (`palettesCarryAlpha`); otherwise it is
    /// opaque, whatever the fourth byte of its entries says.
    var keepsPaletteAlpha = true

    /// Codecs whose palettes have real alpha (PNG's tRNS, GIF's transparent index, TGA's
    /// 32-bit colour maps). The palettes of paletted video (MS Video 1, QuickTime SMC/RLE,
    /// raw AVI) come from headers whose fourth byte is unused, usually 0.
    static func palettesCarryAlpha(_ codec: AVCodecID) -> Bool {
        [AV_CODEC_ID_PNG, AV_CODEC_ID_APNG, AV_CODEC_ID_GIF, AV_CODEC_ID_TARGA, AV_CODEC_ID_DDS].contains(codec)
    }

    /// `sws_scale` of all of `frame` into one packed plane at `target` with `stride` bytes a row
    /// (AVFrame's plane and stride arrays are C arrays, tuples in Swift: rebound to pointers here).
    private static func scale(_ frame: AVFrame, with context: OpaquePointer?, into target: UnsafeMutablePointer<UInt8>?,
                              stride: Int32) -> Int32 {
        var dst: [UnsafeMutablePointer<UInt8>?] = [target, nil, nil, nil]
        var src = frame.data
        var srcStride = frame.linesize
        return withUnsafePointer(to: &src) { srcTuple in
            withUnsafePointer(to: &srcStride) { strideTuple in
                srcTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { srcPlanes in
                    strideTuple.withMemoryRebound(to: Int32.self, capacity: 8) { srcStrides in
                        sws_scale(context, srcPlanes, srcStrides, 0, frame.height, &dst, [stride, 0, 0, 0])
                    }
                }
            }
        }
    }

    deinit {
        // Only a scaler that scaled has contexts, and only then is libswscale sure to be loaded.
        if context != nil { sws_freeContext(context) }
        if hdrContext != nil { sws_freeContext(hdrContext) }
    }

    /// `frame` scaled to `width` x `height` RGBA. Bicubic with accurate rounding: measured
    /// against Lanczos and full chroma interpolation, it gave GIFs closer to the source (SSIM)
    /// and smaller, since it rings less.
    func rgba(from frame: UnsafePointer<AVFrame>, width: Int, height: Int) throws -> RGBAImage {
        try FFmpegLibraries.load()
        if let transfer = ToneMapper.transfer(of: frame.pointee) {
            return try toneMapped(frame, transfer: transfer, width: width, height: height)
        }
        let f = frame.pointee
        let srcFormat = AVPixelFormat(rawValue: f.format)
        let newKey = Key(width: f.width, height: f.height, format: f.format, outWidth: Int32(width), outHeight: Int32(height),
                         space: Int32(f.colorspace.rawValue), range: Int32(f.color_range.rawValue))
        if context == nil || key != newKey {
            let flags = SWS_BICUBIC | SWS_ACCURATE_RND
            context = sws_getCachedContext(context, f.width, f.height, srcFormat,
                                           Int32(width), Int32(height), AV_PIX_FMT_RGBA, flags, nil, nil, nil)
            guard let context else {
                throw ClipKitError.internalFailure(path: "swscale", reason: "cannot convert \(f.width)x\(f.height) pixel format \(f.format) to RGBA")
            }
            key = newKey
            applyColorDetails(context, frame: f, format: srcFormat)
        }
        // Into a padded plane: swscale's packed writers may store whole blocks past a row's end.
        var plane = PaddedPlane(width: width, height: height)
        let scaled: Int32 = plane.bytes.withUnsafeMutableBufferPointer { out in
            Self.scale(f, with: context, into: out.baseAddress, stride: Int32(plane.stride))
        }
        if scaled <= 0 {
            throw ClipKitError.internalFailure(path: "swscale", reason: "scaling failed")
        }
        var image = RGBAImage(width: width, height: height, pixels: plane.packed())
        if srcFormat == AV_PIX_FMT_PAL8 && !keepsPaletteAlpha {
            image.pixels.withUnsafeMutableBufferPointer { pixels in
                for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = 255 }
            }
        }
        return image
    }

    /// The tone mapper of the current HDR stream (its LUTs are built once).
    private var toneMapper: ToneMapper?
    private var hdrContext: OpaquePointer?
    private var hdrKey: Key?

    /// An HDR frame: scaled to 16-bit RGB with its own (BT.2020) matrix, then tone-mapped to
    /// 8-bit BT.709.
    private func toneMapped(_ frame: UnsafePointer<AVFrame>, transfer: ToneMapper.Transfer, width: Int, height: Int) throws -> RGBAImage {
        let f = frame.pointee
        let srcFormat = AVPixelFormat(rawValue: f.format)
        let newKey = Key(width: f.width, height: f.height, format: f.format, outWidth: Int32(width), outHeight: Int32(height),
                         space: Int32(f.colorspace.rawValue), range: Int32(f.color_range.rawValue))
        if hdrContext == nil || hdrKey != newKey {
            hdrContext = sws_getCachedContext(hdrContext, f.width, f.height, srcFormat, Int32(width), Int32(height),
                                              AV_PIX_FMT_RGB48LE, SWS_BICUBIC | SWS_ACCURATE_RND, nil, nil, nil)
            guard let hdrContext else {
                throw ClipKitError.internalFailure(path: "swscale", reason: "cannot convert \(f.width)x\(f.height) pixel format \(f.format) to RGB48")
            }
            hdrKey = newKey
            applyColorDetails(hdrContext, frame: f, format: srcFormat)
        }
        let peak = ToneMapper.peak(of: frame, transfer: transfer)
        if toneMapper?.transfer != transfer || toneMapper?.peak != max(peak, 1) {
            toneMapper = ToneMapper(transfer: transfer, peak: peak)
        }
        var plane = PaddedPlane(width: width, height: height, bytesPerPixel: 6)
        let scaled: Int32 = plane.bytes.withUnsafeMutableBufferPointer { out in
            Self.scale(f, with: hdrContext, into: out.baseAddress, stride: Int32(plane.stride))
        }
        if scaled <= 0 { throw ClipKitError.internalFailure(path: "swscale", reason: "scaling failed") }
        let wide = plane.packed16()
        var image = RGBAImage(width: width, height: height)
        if let toneMapper {
            wide.withUnsafeBufferPointer { source in
                image.pixels.withUnsafeMutableBufferPointer { target in
                    toneMapper.map(source.baseAddress!, into: target.baseAddress!, count: width * height)
                }
            }
        }
        return image
    }

    /// `image` resized to `width` x `height` (GIF canvases, which need no colour conversion).
    func rgba(from image: RGBAImage, width: Int, height: Int) throws -> RGBAImage {
        try FFmpegLibraries.load()
        let newKey = Key(width: Int32(image.width), height: Int32(image.height), format: AV_PIX_FMT_RGBA.rawValue,
                         outWidth: Int32(width), outHeight: Int32(height), space: -1, range: -1)
        if context == nil || key != newKey {
            context = sws_getCachedContext(context, Int32(image.width), Int32(image.height), AV_PIX_FMT_RGBA,
                                           Int32(width), Int32(height), AV_PIX_FMT_RGBA, SWS_BICUBIC | SWS_ACCURATE_RND, nil, nil, nil)
            guard context != nil else {
                throw ClipKitError.internalFailure(path: "swscale", reason: "cannot scale \(image.width)x\(image.height) RGBA")
            }
            key = newKey
        }
        // swscale's SIMD reads (and writes) whole blocks past a row's last pixel, as FFmpeg's own
        // frames allow (strides aligned, buffers padded). A packed Swift array has neither: the
        // last row's over-read took heap garbage into the picture's right edge, so the same GIF
        // scaled to 85 px came out different on every run. Both sides go through padded copies.
        let source = PaddedPlane(width: image.width, height: image.height, copying: image.pixels)
        var target = PaddedPlane(width: width, height: height)
        let scaled: Int32 = source.bytes.withUnsafeBufferPointer { src in
            target.bytes.withUnsafeMutableBufferPointer { dst in
                var srcPlanes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                var dstPlanes: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
                return sws_scale(context, &srcPlanes, [Int32(source.stride), 0, 0, 0], 0, Int32(image.height),
                                 &dstPlanes, [Int32(target.stride), 0, 0, 0])
            }
        }
        if scaled <= 0 { throw ClipKitError.internalFailure(path: "swscale", reason: "scaling failed") }
        return RGBAImage(width: width, height: height, pixels: target.packed())
    }

    /// Uses the frame's own YUV matrix and range (BT.709 for HD, full range for JPEG-style
    /// sources), as the ffmpeg CLI does, instead of swscale's BT.601 limited-range default.
    private func applyColorDetails(_ context: OpaquePointer, frame f: AVFrame, format: AVPixelFormat) {
        guard let descriptor = av_pix_fmt_desc_get(format),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 else { return }
        let space = f.colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : Int32(f.colorspace.rawValue)
        guard let coefficients = sws_getCoefficients(space) else { return }
        let fullRange: Int32 = (f.color_range == AVCOL_RANGE_JPEG
            || [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(format)) ? 1 : 0
        sws_setColorspaceDetails(context, coefficients, fullRange, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
    }
}

/// A packed-pixel plane laid out as swscale expects of its buffers: rows aligned to 64 bytes,
/// and a spare row and 64 bytes after the last, zeroed, so whole-block reads and writes past a
/// row's end stay inside the buffer and read the same bytes every run.
struct PaddedPlane {
    static let alignment = 64
    let width: Int, height: Int, bytesPerPixel: Int, stride: Int
    var bytes: [UInt8]

    init(width: Int, height: Int, bytesPerPixel: Int = 4) {
        self.width = width
        self.height = height
        self.bytesPerPixel = bytesPerPixel
        stride = (width * bytesPerPixel + Self.alignment - 1) / Self.alignment * Self.alignment
        bytes = [UInt8](repeating: 0, count: stride * (height + 1) + Self.alignment)
    }

    /// A padded copy of packed RGBA rows.
    init(width: Int, height: Int, copying packed: [UInt8]) {
        self.init(width: width, height: height)
        let row = width * 4, stride = self.stride
        packed.withUnsafeBufferPointer { from in
            bytes.withUnsafeMutableBufferPointer { to in
                for y in 0..<height {
                    UnsafeMutableRawPointer(to.baseAddress! + y * stride).copyMemory(from: from.baseAddress! + y * row, byteCount: row)
                }
            }
        }
    }

    /// The rows packed, without padding.
    func packed() -> [UInt8] {
        let row = width * bytesPerPixel
        if row == stride { return Array(bytes[0..<row * height]) }
        var out = [UInt8](repeating: 0, count: row * height)
        bytes.withUnsafeBufferPointer { from in
            out.withUnsafeMutableBufferPointer { to in
                for y in 0..<height {
                    UnsafeMutableRawPointer(to.baseAddress! + y * row).copyMemory(from: from.baseAddress! + y * stride, byteCount: row)
                }
            }
        }
        return out
    }

    /// The rows packed as native-endian 16-bit samples (RGB48 on a little-endian machine).
    func packed16() -> [UInt16] {
        let row = width * bytesPerPixel
        var out = [UInt16](repeating: 0, count: row / 2 * height)
        bytes.withUnsafeBufferPointer { from in
            out.withUnsafeMutableBytes { to in
                for y in 0..<height {
                    (to.baseAddress! + y * row).copyMemory(from: from.baseAddress! + y * stride, byteCount: row)
                }
            }
        }
        return out
    }
}
