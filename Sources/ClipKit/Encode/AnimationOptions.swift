// How an animated WebP or an MP4 is encoded: quality, lossless, looping, CRF.

/// Encoder settings for `AnimationWriter`. Each format reads its own fields and ignores the rest.
///
/// The defaults were chosen on the bench's 10 s 720p clip at `clipkit gif`'s defaults (10 fps,
/// 480x270), scored by bench/webmp4.py (SSIM against the source, as the GIF is scored): the GIF
/// is 3,302,706 bytes at SSIM 0.962; WebP quality 80 is 598,224 bytes (0.18x) at 0.976 (quality
/// 75, cwebp's default, falls just short of the GIF at 0.959); MP4 CRF 23 is 293,545 bytes
/// (0.09x) at 0.983.
public struct AnimationOptions: Sendable, Equatable {
    /// WebP quality, 0...100 (cwebp's `-q`): higher is larger and closer to the source. With
    /// `lossless`, how hard libwebp works to make the file smaller (pixels are exact either way).
    public var quality: Double = 80
    /// WebP: store every pixel exactly (libwebp's lossless mode).
    public var lossless = false
    /// WebP: how many times the animation plays (the ANIM chunk's loop count); 0 plays forever.
    public var loopCount = 0
    /// MP4: x264's constant rate factor, 0...51: lower is larger and closer to the source; 23 is
    /// x264's and ffmpeg's default.
    public var crf: Double = 23

    // Encoder settings chosen by measurement, not offered to users; internal so the measurement
    // test (AnimationMeasureTests) can try others. Figures: bytes and SSIM on the clip above.
    /// x264's preset. At CRF 23: veryfast 290,997 (0.9825), faster 293,545 (0.9828), medium
    /// 301,003 (0.9820) in 2x faster's time: faster is as small as any at equal SSIM.
    var x264Preset = "faster"
    /// Frames x264 looks ahead (rate control): the pictures the encoder holds are bounded by it.
    /// 10 instead of the preset's 20 costs nothing here (20: 292,495; 40: 293,307 bytes) and
    /// saves 30 MB at 1280x720 (ffmpeg's peak RSS: 136 MB at 10, 166 MB at 20, 227 MB at 40).
    var x264Lookahead = 10
    /// B-frames between references; nil keeps the preset's (3). None: decode order is then
    /// presentation order, so every duration in the file (sample table, media header, edit
    /// list) is the clip's, also for variable frame rates, where x264's reordered decode
    /// timestamps would leave the sample table shorter than the clip. Costs 1.3% (3 B-frames:
    /// 289,782 bytes at the same SSIM).
    var x264BFrames: Int? = 0
    /// libwebp's method, 0 (fast) ... 6 (smallest). 4 is ffmpeg's default: 2 is 6% larger,
    /// 6 is 2% smaller but 30 times slower.
    var webpMethod = 4

    public init(quality: Double = 80, lossless: Bool = false, loopCount: Int = 0, crf: Double = 23) {
        self.quality = quality
        self.lossless = lossless
        self.loopCount = loopCount
        self.crf = crf
    }

    /// The settings that shape WebP and MP4 outputs, in a fixed text form for a `Fingerprint`'s
    /// options (the loop count follows the GIF's, which its options already hold).
    public var fingerprintOptions: String {
        "webp-quality=\(quality) lossless=\(lossless) crf=\(crf) x264=\(x264Preset)/\(x264Lookahead)/\(x264BFrames ?? -1) webp-method=\(webpMethod)"
    }

    /// Throws `invalidOption` for values the encoders cannot take.
    func validate() throws {
        if !(quality >= 0 && quality <= 100) {
            throw ClipKitError.invalidOption(name: "--quality", reason: "must be 0 to 100, got \(quality)")
        }
        if !(0...65535).contains(loopCount) {
            throw ClipKitError.invalidOption(name: "--loop", reason: "must be 0 (forever) to 65535, got \(loopCount)")
        }
        if !(crf >= 0 && crf <= 51) {
            throw ClipKitError.invalidOption(name: "--crf", reason: "must be 0 to 51, got \(crf)")
        }
    }
}
