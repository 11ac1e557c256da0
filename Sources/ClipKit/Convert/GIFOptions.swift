// Everything that shapes a GIF: timing, size, colours, looping.
import Foundation

/// Where a GIF's colours come from.
public enum PaletteMode: String, Sendable, CaseIterable {
    /// Each frame its own best colours, except on small pictures, whose frames share one palette
    /// made from them as they are held in memory (`SharedPalettePool`): there a frame's own
    /// colour table would outweigh its pixels. Per-frame under `--max-bytes`.
    case auto
    /// Each frame gets its own best colours (a local table where it differs from the first frame's).
    case perFrame = "per-frame"
    /// One palette for the whole clip (a second decoding pass gathers the colours).
    case global
}

/// Everything that shapes a GIF made by `GIFConverter`, and the limits of one input.
public struct GIFOptions: Sendable {
    /// Output frames per second (at most `TimingBounds.maxGIFFPS`: browsers slow down shorter
    /// delays). nil: a whole GIF input keeps its own frames and delays, as gifsicle and `ffmpeg
    /// -i in.gif out.gif` do (cut or sped up, it is sampled at `defaultFPS`: a delay could fall
    /// under what browsers play); other inputs are sampled at `defaultFPS`.
    public var fps: Double?
    /// The frame rate of a video (or a sped-up GIF) when `fps` is not given.
    public static let defaultFPS = 10.0
    public var size: FrameSize = .width(480)
    /// Seconds into the source where the GIF starts.
    public var start: Double = 0
    /// Seconds into the source where the GIF ends; nil for the end of the clip.
    public var end: Double?
    /// Playback speed factor: 2 plays twice as fast (dropping frames, never shortening delays).
    public var speed: Double = 1
    /// Colours per palette, 2...256; a power of two from 8 up is the table's size, the transparent
    /// entry included (`colorsBesideTransparent`).
    public var colors: Int = 256
    public var dither: DitherMethod = .floydSteinberg
    public var palette: PaletteMode = .auto
    /// NETSCAPE2.0 loop count: 0 forever, N repeats; nil writes no loop extension (plays once).
    public var loopCount: Int? = 0
    /// Largest perceptual colour difference treated as "unchanged" between frames (0 = exact).
    /// 250 is a uniform change of about 5 levels per channel: measured on two 720p test clips, it
    /// keeps SSIM well above ffmpeg's palettegen recipe while cutting the file by a tenth against 100.
    public var changeThreshold = 250
    /// Lossy LZW compression: 0 writes exactly the dithered indices; higher lets each image's
    /// compressor take a nearby colour that continues a string it already has (smaller files,
    /// a little noise). Roughly the scale of gifsicle's `--lossy`.
    public var lossy = 0
    public static let maxLossy = 1000
    /// How close a palette must come to a frame's pixels (mean `Palette.distance`, 3:4:2-weighted
    /// squared RGB) before it stops taking colours, up to `colors`; 0 takes them all. Set by
    /// `--quality` (`qualityAnchors`): a frame that needs fewer colours (a screen recording's
    /// flat UI) gets fewer, and spends the bytes they would cost on less loss elsewhere.
    public var paletteError = 0
    /// Far past any frame's error at 2 colours (the largest weighted distance is 585,225).
    public static let maxPaletteError = 1_000_000

    /// The largest GIF wanted, in bytes (`--max-bytes`); nil for no limit. The GIF is made at the
    /// highest `--quality` level that fits, from `quality` (100 when nil) down to
    /// `FitSearch.floor`, each pass stopping as soon as its size is known to be too far from
    /// the limit (`FitSearch`); below that level the picture is made narrower. Settings given
    /// explicitly stay. The GIF never exceeds it; when nothing fits, the error names the smallest size.
    public var maxBytes: Int?
    /// The `--quality` level the colours, threshold and lossy were picked from (`apply(quality:)`);
    /// where `--max-bytes` starts. nil when none was given.
    public var quality: Int?
    /// The settings given explicitly: `apply(quality:)` and the `--max-bytes` levels leave them
    /// as they are, even at their default values (`--lossy 0` with `--max-bytes`: no lossy LZW).
    /// A setting away from its default counts as given too.
    public var givenSettings: GivenSettings = []
    /// Measure the GIF while writing it: what a viewer sees at each output tick against the
    /// source frame it stands for, by luma SSIM (`GIFResult.ssim`, every tick) and SSIMULACRA2
    /// (`GIFResult.ssimulacra2` and `ssimulacra2P5`, at most 2 ticks a second). On by itself
    /// with `minQuality`.
    public var measure = false
    /// The lowest SSIMULACRA2 accepted (0...100; the mean over the ticks scored): a GIF measured
    /// below it is not written (an error), and `--max-bytes` keeps only settings that reach it.
    /// nil accepts any; values over 0 up to 1 are refused (they read as the SSIM this took before).
    public var minQuality: Double?
    /// The floor the command line sets with `--max-bytes` unless told otherwise: it stops ruin,
    /// not ordinary loss. 30 is "low quality" on SSIMULACRA2's own scale (libjpeg quality 20);
    /// the bench's 720p clip at the first `--quality` mapping's 50 scored 24.8 and looked broken
    /// (small digits gone, streaks over flat areas), while the `--max-bytes` fits at 25-75% of
    /// the default size of three clips scored 62-80 when the floor was set.
    public static let defaultMinQualityForMaxBytes = 30.0
    /// Merge consecutive identical frames into one with the summed delay.
    public var mergeIdenticalFrames = true
    /// Off only to measure what the writer's feedback to the quantiser brings (a test's baseline).
    var handsShownBack = true
    /// Pixels, frames, duration, output size and time allowed for one input.
    public var limits = Limits()
    /// Largest source frame accepted, in pixels (`limits.maxPixels`).
    public var maxPixels: Int {
        get { limits.maxPixels }
        set { limits.maxPixels = newValue }
    }

    /// How WebP and MP4 outputs of the same conversion are encoded (their loop count follows
    /// `loopCount`).
    public var animation = AnimationOptions()

    /// The fingerprint the GIF (and its poster) records (a GIF comment before the trailer, a PNG
    /// `tEXt` chunk); nil records none.
    public var fingerprint: FingerprintSource?

    public init() {}

    /// The options that shape the GIF, in a fixed text form: a `Fingerprint`'s options. Limits
    /// are not among them.
    public var fingerprintOptions: String {
        let fields = [
            "fps=\(fps.map { "\($0)" } ?? "default")", "size=\(size.key)", "start=\(start)", "end=\(end.map { "\($0)" } ?? "none")",
            "speed=\(speed)", "colors=\(colors)", "dither=\(dither.rawValue)", "palette=\(palette.rawValue)",
            "threshold=\(changeThreshold)", "loop=\(loopCount.map { "\($0)" } ?? "none")", "merge=\(mergeIdenticalFrames)",
        ]
        // Appended only when set, so GIFs made before the option keep their fingerprints.
        var lossyField: [String] = lossy != 0 ? ["lossy=\(lossy)"] : []
        if paletteError != 0 { lossyField.append("palette-error=\(paletteError)") }
        if let maxBytes { lossyField.append("max-bytes=\(maxBytes)") }
        if let minQuality { lossyField.append("min-quality=\(minQuality)") }
        // Where --max-bytes starts its search.
        if maxBytes != nil, let quality { lossyField.append("quality=\(quality)") }
        return "gif " + (fields + lossyField).joined(separator: " ")
    }

    /// Throws `ClipKitError.invalidOption` for values that cannot work.
    public func validate() throws {
        if let fps { try TimingBounds.checkFPS(fps, atMost: TimingBounds.maxGIFFPS) }
        try TimingBounds.checkSpeed(speed)
        guard (2...256).contains(colors) else {
            throw ClipKitError.invalidOption(name: "--colors", reason: "must be 2 to 256, got \(colors)")
        }
        guard start.isFinite, start >= 0 else {
            throw ClipKitError.invalidOption(name: "--start", reason: "must be zero or more seconds")
        }
        if let end, !(end.isFinite && end > start) {
            throw ClipKitError.invalidOption(name: "--end", reason: "must be after --start")
        }
        if let loopCount, !(0...65535).contains(loopCount) {
            throw ClipKitError.invalidOption(name: "--loop", reason: "must be 0 (forever) to 65535")
        }
        if let maxBytes, maxBytes < 1 {
            throw ClipKitError.invalidOption(name: "--max-bytes", reason: "must be more than 0 bytes, got \(maxBytes)")
        }
        if let minQuality, !(minQuality.isFinite && (0...100).contains(minQuality)) || (0 < minQuality && minQuality <= 1) {
            // (0, 1] is refused: it reads as the SSIM --min-quality used to take, and as
            // SSIMULACRA2 points it would accept almost anything.
            throw ClipKitError.invalidOption(name: "--min-quality", reason: "is SSIMULACRA2 points from 0 to 100 (e.g. 50); values over 0 up to 1 read as an SSIM and are refused; got \(minQuality)")
        }
        guard (0...Self.maxPaletteError).contains(paletteError) else {
            throw ClipKitError.invalidOption(name: "--palette-error", reason: "must be 0 to \(Self.maxPaletteError), got \(paletteError)")
        }
        guard (0...Self.maxLossy).contains(lossy) else {
            throw ClipKitError.invalidOption(name: "--lossy", reason: "must be 0 (exact) to \(Self.maxLossy), got \(lossy)")
        }
    }
}

/// What a conversion produced.
public struct GIFResult: Sendable {
    public var url: URL
    public var width: Int
    public var height: Int
    /// Images written (after merging identical frames).
    public var frameCount: Int
    /// Sum of the written delays, in centiseconds.
    public var durationCentiseconds: Int
    public var bytes: Int
    /// Damage in the source that was decoded around (GIF input: cut images, a missing trailer).
    public var warnings: [String] = []
    /// The settings the GIF was written with (for `--max-bytes`, the ones it chose).
    public var settings = GIFSettings(GIFOptions())
    /// The highest lossy LZW level later images were written with, when `--max-bytes` raised it
    /// above `settings.lossy` to land under the limit (`LossyRateControl`); nil when it did not.
    public var raisedLossy: Int?
    /// The lowest lossy LZW level later images were written with, when `--max-bytes` lowered it
    /// below `settings.lossy` to land nearer the limit (`LossyRateControl`); nil when it did not.
    public var loweredLossy: Int?
    /// Luma SSIM of what a viewer sees at each output tick against the source frame it stands
    /// for, the mean over ticks (`GIFOptions.measure`); nil when not measured.
    public var ssim: Double?
    /// SSIMULACRA2 (0-100, colour-aware) of what a viewer sees against the source frame, the mean
    /// over the ticks scored (at most 2 per second of output, the first and last always;
    /// `GIFOptions.measure`); nil when not measured or under 8 pixels on a side.
    public var ssimulacra2: Double?
    /// The 5th percentile of the ticks' SSIMULACRA2: how the worst stretch looks.
    public var ssimulacra2P5: Double?
    /// The GIF's length minus the converted stretch's (output time), in milliseconds.
    public var durationErrorMilliseconds = 0
    /// WebP/MP4 outputs written from the same decode (`GIFConverter.convert(video:outputs:poster:)`).
    var animations: [AnimationResult] = []
}

/// What `GIFConverter.convert(video:outputs:poster:)` wrote.
public struct ConversionResult: Sendable {
    /// The GIF, when one was asked for.
    public var gif: GIFResult?
    /// The WebP and MP4 outputs, in the order asked for.
    public var animations: [AnimationResult]
    /// Damage in the source that was decoded around.
    public var warnings: [String]
}

/// Which of the settings `--quality` picks were given explicitly (`GIFOptions.givenSettings`).
public struct GivenSettings: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let colors = GivenSettings(rawValue: 1)
    public static let dither = GivenSettings(rawValue: 2)
    public static let changeThreshold = GivenSettings(rawValue: 4)
    public static let lossy = GivenSettings(rawValue: 8)
    public static let paletteError = GivenSettings(rawValue: 16)
}

/// The settings that shape a GIF's size, as chosen.
public struct GIFSettings: Sendable, Equatable {
    public var lossy: Int
    public var colors: Int
    public var changeThreshold: Int
    public var dither: DitherMethod
    /// `GIFOptions.paletteError`.
    public var paletteError: Int

    public init(_ options: GIFOptions) {
        self.init(lossy: options.lossy, colors: options.colors, changeThreshold: options.changeThreshold, dither: options.dither,
                  paletteError: options.paletteError)
    }

    public init(lossy: Int, colors: Int, changeThreshold: Int, dither: DitherMethod, paletteError: Int = 0) {
        self.lossy = lossy
        self.colors = colors
        self.changeThreshold = changeThreshold
        self.dither = dither
        self.paletteError = paletteError
    }
}

extension GIFOptions {
    /// Colours of a palette whose table also holds the transparent entry. `colors` a power of
    /// two from 8 up is the table's size, the transparent entry included (as ffmpeg's palettegen
    /// counts with reserve_transparent): one colour fewer, as the transparent entry would double
    /// the table and widen every code by a bit (128 colours and the transparent entry need a
    /// table of 256 and 8-bit codes; 127 fit in 128 and 7: on the bench's 3 s cuts at
    /// `--quality 50` that took 3.0-6.3% off natural video for 0.4-0.5 SSIMULACRA2 points).
    /// Other counts fit beside it in the same table; 2 and 4 keep every colour (one of 2 is a
    /// black-and-white GIF's other colour), the table growing by a few bytes.
    var colorsBesideTransparent: Int {
        colors >= 8 && colors & (colors - 1) == 0 ? colors - 1 : min(colors, 255)
    }
}
