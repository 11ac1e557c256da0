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
    /// An interlaced frame is scaled from its first field (`InterlacedField`).
    func rgba(from frame: UnsafePointer<AVFrame>, width: Int, height: Int) throws -> RGBAImage {
        try FFmpegLibraries.load()
        if let field = InterlacedField.firstField(of: frame.pointee) {
            return try withUnsafePointer(to: field) { try rgba(fromPicture: $0, width: width, height: height) }
        }
        return try rgba(fromPicture: frame, width: width, height: height)
    }

    /// `frame`'s rows as they are, scaled to `width` x `height` RGBA.
    private func rgba(fromPicture frame: UnsafePointer<AVFrame>, width: Int, height: Int) throws -> RGBAImage {
        if let transfer = ToneMapper.transfer(of: frame.pointee) {
            return try toneMapped(frame, transfer: transfer, width: width, height: height)
        }
        let f = frame.pointee
        let srcFormat = AVPixelFormat(rawValue: f.format)
        let newKey = Key(width: f.width, height: f.height, format: f.format, outWidth: Int32(width), outHeight: Int32(height),
                         space: Int32(f.colorspace.rawValue), range: Int32(f.color_range.rawValue))
        if context == nil || key != newKey {
            let flags = SWS_BICUBIC | SWS_ACCURATE_RND | Self.chromaFlags(srcFormat)
            context = sws_getCachedContext(context, f.width, f.height, srcFormat,
                                           Int32(width), Int32(height), AV_PIX_FMT_RGBA, flags, nil, nil, nil)
            guard let context else {
                throw ClipKitError.internalFailure(path: "swscale", reason: "cannot convert \(f.width)x\(f.height) pixel format \(f.format) to RGBA")
            }
            key = newKey
            applyColorDetails(context, frame: f, format: srcFormat)
        }
        // With slack behind the last row: swscale's packed writers store whole blocks past a row's end.
        var pixels = SwscaleBuffers.output(width * height * 4, of: UInt8.self)
        let scaled: Int32 = pixels.withUnsafeMutableBufferPointer { out in
            Self.scale(f, with: context, into: out.baseAddress, stride: Int32(width * 4))
        }
        if scaled <= 0 {
            throw ClipKitError.internalFailure(path: "swscale", reason: "scaling failed")
        }
        var image = RGBAImage(width: width, height: height, pixels: SwscaleBuffers.trimmed(pixels, to: width * height * 4))
        if srcFormat == AV_PIX_FMT_PAL8 && !keepsPaletteAlpha {
            image.pixels.withUnsafeMutableBufferPointer { pixels in
                for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = 255 }
            }
        }
        return image
    }

    /// RGB sources keep their full chroma through libswscale, which otherwise converts them to
    /// 4:2:0 YUV on the way: a colour edge softened over two pixels, and on an odd width the
    /// last pair of chroma samples read a pixel past each row's end (the last output column off
    /// by 13-75 levels on QuickTime Animation, PNG-in-MOV and FFV1 RGB, and from the decoder's
    /// uncleared padding, different from run to run: two different GIFs in eight runs).
    static func chromaFlags(_ format: AVPixelFormat) -> Int32 {
        guard let descriptor = av_pix_fmt_desc_get(format), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 else { return 0 }
        return SWS_FULL_CHR_H_INP | SWS_FULL_CHR_H_INT
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
        var wide = SwscaleBuffers.output(width * height * 3, of: UInt16.self)
        let scaled: Int32 = wide.withUnsafeMutableBytes { out in
            Self.scale(f, with: hdrContext, into: out.baseAddress?.assumingMemoryBound(to: UInt8.self), stride: Int32(width * 6))
        }
        if scaled <= 0 { throw ClipKitError.internalFailure(path: "swscale", reason: "scaling failed") }
        wide = SwscaleBuffers.trimmed(wide, to: width * height * 3)
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

    /// A decoded picture of a stream described by `info` as an upright frame of `size`: scaled in
    /// its stored orientation, then turned. What `FrameDecoder` emits and `DecodedFramesReplay`
    /// makes again from the same picture, so the two cannot differ.
    func uprightImage(from frame: UnsafePointer<AVFrame>, info: VideoInfo, size: FrameSize) throws -> RGBAImage {
        let output = size.resolve(width: info.width, height: info.height)
        let stored = info.rotation.swapsAxes ? (output.height, output.width) : output
        return try rgba(from: frame, width: stored.0, height: stored.1).applying(info.rotation)
    }

    /// `image` resized to `width` x `height` (GIF canvases, which need no colour conversion).
    func rgba(from image: RGBAImage, width: Int, height: Int) throws -> RGBAImage {
        try FFmpegLibraries.load()
        // Twice or more too large: averaged over whole boxes first, so what swscale gets is at
        // most twice the output (a 10000x10000 canvas is 400 MB; the copy below is of the
        // reduced picture).
        let source = image.boxAveraged(across: max(1, image.width / (2 * width)), down: max(1, image.height / (2 * height)))
        let newKey = Key(width: Int32(source.width), height: Int32(source.height), format: AV_PIX_FMT_RGBA.rawValue,
                         outWidth: Int32(width), outHeight: Int32(height), space: -1, range: -1)
        if context == nil || key != newKey {
            context = sws_getCachedContext(context, Int32(source.width), Int32(source.height), AV_PIX_FMT_RGBA,
                                           Int32(width), Int32(height), AV_PIX_FMT_RGBA, SWS_BICUBIC | SWS_ACCURATE_RND, nil, nil, nil)
            guard context != nil else {
                throw ClipKitError.internalFailure(path: "swscale", reason: "cannot scale \(source.width)x\(source.height) RGBA")
            }
            key = newKey
        }
        // swscale reads and writes past rows' ends (`SwscaleBuffers`): the last row's over-read
        // took heap garbage into the right edge, the same GIF scaled to 85 px different each run.
        let padded = SwscaleBuffers.padded(source.pixels)
        var pixels = SwscaleBuffers.output(width * height * 4, of: UInt8.self)
        let scaled: Int32 = padded.withUnsafeBufferPointer { from in
            pixels.withUnsafeMutableBufferPointer { target in
                var src: [UnsafePointer<UInt8>?] = [from.baseAddress, nil, nil, nil]
                var dst: [UnsafeMutablePointer<UInt8>?] = [target.baseAddress, nil, nil, nil]
                return sws_scale(context, &src, [Int32(source.width * 4), 0, 0, 0], 0, Int32(source.height), &dst, [Int32(width * 4), 0, 0, 0])
            }
        }
        if scaled <= 0 { throw ClipKitError.internalFailure(path: "swscale", reason: "scaling failed") }
        return RGBAImage(width: width, height: height, pixels: SwscaleBuffers.trimmed(pixels, to: width * height * 4))
    }

    /// Uses the frame's own YUV matrix and range (BT.709 for HD, full range for JPEG-style
    /// sources), as the ffmpeg CLI does, instead of swscale's BT.601 limited-range default.
    /// Grey without a range is full range, as swscale and the ffmpeg CLI take it (black 0, white
    /// the largest value): 10 to 16-bit grey was stretched as if limited (64/1023 came out 0,
    /// 512 as 130), while 8-bit grey, which swscale converts by a table, was not.
    private func applyColorDetails(_ context: OpaquePointer, frame f: AVFrame, format: AVPixelFormat) {
        guard let descriptor = av_pix_fmt_desc_get(format),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 else { return }
        let space = f.colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : Int32(f.colorspace.rawValue)
        guard let coefficients = sws_getCoefficients(space) else { return }
        let grey = descriptor.pointee.nb_components <= 2 && descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) == 0
        let fullRange: Int32 = (f.color_range == AVCOL_RANGE_JPEG
            || [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(format)
            || (grey && f.color_range == AVCOL_RANGE_UNSPECIFIED)) ? 1 : 0
        sws_setColorspaceDetails(context, coefficients, fullRange, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
    }
}

/// swscale's SIMD reads and writes whole blocks past a row's end, as FFmpeg's own frames allow
/// (their buffers are padded). A packed Swift array is not: past its last row lie other
/// allocations. Inputs are copied with `slack` zeroed bytes behind them, outputs get `slack`
/// spare bytes (dropped after, no copy). (Feeding only the last rows from a padded copy, as a
/// second slice, crashed libswscale 6 on downscales past about 50x.)
enum SwscaleBuffers {
    /// Spare bytes after a buffer's last row.
    static let slack = 256

    /// A zeroed output of `count` elements with `slack` more behind it; `trimmed` drops them.
    static func output<T: Numeric>(_ count: Int, of _: T.Type) -> [T] {
        [T](repeating: 0, count: count + slack)
    }

    static func trimmed<T>(_ buffer: [T], to count: Int) -> [T] {
        var buffer = buffer
        buffer.removeLast(buffer.count - count)
        return buffer
    }

    /// `pixels` with `slack` zeroed bytes behind them.
    static func padded(_ pixels: [UInt8]) -> [UInt8] {
        var copy = pixels
        copy.append(contentsOf: repeatElement(0, count: slack))
        return copy
    }
}
