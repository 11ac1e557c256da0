// Everything that shapes a GIF: timing, size, colours, looping.
import Foundation

/// Where a GIF's colours come from.
public enum PaletteMode: String, Sendable, CaseIterable {
    /// Each frame gets its own best colours (a local table where it differs from the first frame's).
    case perFrame = "per-frame"
    /// One palette for the whole clip (a second decoding pass gathers the colours).
    case global
}

/// Everything that shapes a GIF made by `GIFConverter`, and the limits of one input.
public struct GIFOptions: Sendable {
    /// Output frames per second (at most `TimingBounds.maxGIFFPS`: browsers slow down shorter delays).
    public var fps: Double = 10
    public var size: FrameSize = .width(480)
    /// Seconds into the source where the GIF starts.
    public var start: Double = 0
    /// Seconds into the source where the GIF ends; nil for the end of the clip.
    public var end: Double?
    /// Playback speed factor: 2 plays twice as fast (dropping frames, never shortening delays).
    public var speed: Double = 1
    /// Colours per palette, 2...256.
    public var colors: Int = 256
    public var dither: DitherMethod = .floydSteinberg
    public var palette: PaletteMode = .perFrame
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
            "fps=\(fps)", "size=\(size.key)", "start=\(start)", "end=\(end.map { "\($0)" } ?? "none")",
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
        try TimingBounds.checkFPS(fps, atMost: TimingBounds.maxGIFFPS)
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

/// `--quality`: one knob that moves along the measured bytes-against-SSIMULACRA2 frontier.
extension GIFOptions {
    /// The quantiser lets a changed pixel keep what the viewer already sees (the transparent
    /// index) where that is within `shownKeepTolerance` of the nearest palette colour to it,
    /// dithering error included: a still area keeps its dither pattern instead of being
    /// dithered anew. It needs to know exactly what the viewer sees, which it does in two cases:
    /// the GIF is written as quantised (`writesAsQuantised`), so the quantiser follows it itself;
    /// or under lossy LZW the writer hands each image's result back (`feedsShownBack`).
    /// (Keeping against the quantiser's own canvas under lossy LZW cost 720p 1.6 points at 6%
    /// more bytes at `--threshold 0 --lossy 40`; against the writer's, it gained 1.1 points.)
    var writesAsQuantised: Bool { lossy == 0 }

    /// Whether the GIF writer hands what the viewer sees back to the quantiser after each image
    /// (lossy LZW). The two stages then take turns instead of overlapping.
    var feedsShownBack: Bool { lossy > 0 && handsShownBack }

    /// `keepTolerance` where the GIF is written as quantised, never past the change threshold
    /// (at 0 a colour the palette holds stays exact); 0 under lossy LZW, which has its own.
    var shownKeepTolerance: Int { lossy > 0 ? 0 : min(Self.keepTolerance, changeThreshold) }

    /// How much farther (`Palette.distance` units, 3:4:2-weighted squared RGB) what is shown
    /// may be from a pixel's colour than the nearest palette colour, for the pixel to keep it;
    /// never more than the change threshold (at `--threshold 0` only what is as close is kept,
    /// so colours the palette holds stay exact).
    /// Measured with bench/rd_eval.py (bytes / SSIMULACRA2, 0 = keep only what is as close):
    /// with the defaults it took 0.05-2.9% off the bytes of the four clips and added 0-0.4
    /// points (200 lost up to 0.7 points); at `--threshold 60` the 1080p clip fell from
    /// 847 KB / 68.5 (no keeping) to 671 KB / 68.1 and the natural one from 1,652 KB / 72.8 to
    /// 1,541 KB / 73.4. At 150 and more, kept pixels scattered through a dithered area cut
    /// LZW's strings (720p at threshold 0 grew 14%).
    static let keepTolerance = 60

    /// Points of the frontier, best first (a sweep of colours x lossy x threshold on
    /// bench/rd_eval.py's four clips, scored with SSIMULACRA2, the colour-aware measure).
    /// Floyd-Steinberg stays on. The change threshold is 0 at 100 (every change drawn exactly:
    /// the top of the scale) and near 0 from 95 to 50: lossy LZW that
    /// sees the canvas, and the quantiser keeping what the writer showed, decide better than a
    /// threshold what may stay (a coarse threshold's stale pixels are what the measure punishes
    /// most); at equal bytes threshold 60 lost up to 7 points on the 720p clip. It rises to 20 at
    /// 40 and 60 below, where the faint-noise 1080p clip needs it to save bytes. Colours and
    /// lossy LZW fall together, as either alone costs more (the screen recording falls off a
    /// cliff past lossy ~150 at 192-256 colours, not at 128). At the very bottom the threshold
    /// rises, as nothing else saves bytes. Where the numbers sit is a choice: 50 is the frontier
    /// point that scores 60 on the bench's 10 s 720p clip (issue 20's mark for "50"); the levels
    /// below keep the anchors they had one step lower before (old 50, 35, 20 are now 40, 25, 12).
    /// The palette error (`paletteError`) is 60 from 90 down (30 at 95, 0 at 100): a palette
    /// stops taking colours once a frame's mean weighted error is 60 (about 2.6 levels per
    /// channel before dithering). Natural video stays far above that at 128-256 colours (the
    /// bench clips' frames: 85-370 at 128), so it keeps them all and its bytes do not move;
    /// the screen recording's frames reach it at 64-96 colours, and the colours saved cost
    /// nothing seen: at equal bytes it gained 5-9 SSIMULACRA2 points from level 40 to 90
    /// (e.g. 50: 478,626 B / 61.0 before, 448,934 B / 61.1 now), lost 2-4 at 25-35, while the
    /// other three clips moved by -0.8 to +0.5. Larger targets gained the screen more (120:
    /// +11-16 at 50-75) but cost the 720p and 1080p clips 1.5-5 points at 75-95.
    static let qualityAnchors: [(quality: Int, colors: Int, threshold: Int, lossy: Int, paletteError: Int)] = [
        (100, 256, 0, 0, 0), (95, 256, 1, 20, 30), (90, 256, 2, 40, 60), (75, 192, 2, 80, 60), (50, 128, 2, 150, 60),
        (40, 128, 20, 200, 60), (25, 64, 60, 300, 60), (12, 48, 60, 500, 60), (1, 32, 2000, 1000, 60),
    ]

    /// The settings `--quality` 1...100 stands for. 100 is the best GIF clipkit makes (256
    /// colours, Floyd-Steinberg, threshold 0, exact: every change drawn); below it colours and the
    /// change threshold move between the anchors geometrically (linearly from 0), lossy and the
    /// palette error linearly, dithering stays on. The default output (threshold 250, exact) is not on this
    /// scale: on natural video it lies between 90 and 100 in bytes and below 90 in SSIMULACRA2;
    /// on screen recordings between 95 and 100 in both.
    public static func settings(forQuality quality: Int) -> GIFSettings {
        let q = min(max(quality, 1), 100)
        let defaults = GIFSettings(GIFOptions())
        for (high, low) in zip(qualityAnchors, qualityAnchors.dropFirst()) where q <= high.quality && q >= low.quality {
            let t = Double(high.quality - q) / Double(high.quality - low.quality)
            // Geometric where both ends are positive, linear from 0 (threshold 0 at 100).
            func geometric(_ a: Int, _ b: Int) -> Int {
                guard a > 0, b > 0 else { return Int((Double(a) + Double(b - a) * t).rounded()) }
                return Int((Double(a) * pow(Double(b) / Double(a), t)).rounded())
            }
            func linear(_ a: Int, _ b: Int) -> Int { Int((Double(a) + Double(b - a) * t).rounded()) }
            return GIFSettings(lossy: linear(high.lossy, low.lossy), colors: geometric(high.colors, low.colors),
                               changeThreshold: geometric(high.threshold, low.threshold), dither: defaults.dither,
                               paletteError: linear(high.paletteError, low.paletteError))
        }
        return defaults
    }

    /// Applies `settings(forQuality:)` to colours, dithering, threshold, lossy and palette error, except to
    /// those already set away from their defaults (the caller's win), and records `quality`.
    public mutating func apply(quality: Int) {
        let picked = Self.settings(forQuality: quality), defaults = GIFOptions()
        if colors == defaults.colors { colors = picked.colors }
        if dither == defaults.dither { dither = picked.dither }
        if changeThreshold == defaults.changeThreshold { changeThreshold = picked.changeThreshold }
        if lossy == defaults.lossy { lossy = picked.lossy }
        if paletteError == defaults.paletteError { paletteError = picked.paletteError }
        self.quality = quality
    }

    /// These options with the settings `quality` picked at another level: those `quality`
    /// picked (or left at their defaults when it is nil) move, those given explicitly stay.
    func moved(toQuality level: Int) -> GIFOptions {
        let picked = Self.settings(forQuality: level)
        let from = quality.map(Self.settings(forQuality:)) ?? GIFSettings(GIFOptions())
        var moved = self
        if colors == from.colors { moved.colors = picked.colors }
        if dither == from.dither { moved.dither = picked.dither }
        if changeThreshold == from.changeThreshold { moved.changeThreshold = picked.changeThreshold }
        if lossy == from.lossy { moved.lossy = picked.lossy }
        if paletteError == from.paletteError { moved.paletteError = picked.paletteError }
        moved.quality = level
        return moved
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
