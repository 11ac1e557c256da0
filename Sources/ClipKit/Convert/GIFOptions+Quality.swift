// `--quality`: the settings each level stands for, and how they move under `--max-bytes`.
import Foundation

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

    /// Whether the GIF writer hands what the viewer sees back to the quantiser (lossy LZW), in
    /// bands of rows as it writes each image (`ShownReport`): the quantiser dithers a row of the
    /// next frame once that row is in, so the two stages overlap by all but a band.
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
    /// point that scores 60 on the bench's 10 s 720p clip (issue 20's mark for "50"; 60.3 with
    /// the lossy LZW's search and lossy 135, every 3rd tick, 62.3 on its 3 s cut); the levels
    /// below keep the anchors they had one step lower before (old 50, 35, 20 are now 40, 25, 12).
    /// The palette error (`paletteError`) is 60 at 90 (30 at 95, 0 at 100): a palette
    /// stops taking colours once a frame's mean weighted error is 60 (about 2.6 levels per
    /// channel before dithering). Natural video stays far above that at 128-256 colours (the
    /// bench clips' frames: 85-370 at 128), so it keeps them all and its bytes do not move;
    /// the screen recording's frames reach it at 64-96 colours, and the colours saved cost
    /// nothing seen: at equal bytes it gained 5-9 SSIMULACRA2 points from level 40 to 90
    /// (e.g. 50: 478,626 B / 61.0 before, 448,934 B / 61.1 now), lost 2-4 at 25-35, while the
    /// other three clips moved by -0.8 to +0.5. Larger targets gained the screen more (120:
    /// +11-16 at 50-75) but cost the 720p and 1080p clips 1.5-5 points at 75-95; so the target
    /// rises only below 90, as the level falls: 90 at 75, 100 at 50, 150 at 40, 200 from 25 down.
    /// Against 60 throughout, at equal bytes: screen +1.8 at 75, +3.5 at 50, +6.5 at 25 (looked
    /// at beside the old curve at 435 KB: fewer specks on the terminal's black and cleaner
    /// text), 720p +0.5 to +1.0, 1080p -0.2 to -0.5 (-1.5 to -2 with 120-150 at 50, which also
    /// took 50 under 60 on the 720p clip), natural unmoved; BD-rate over the levels: screen
    /// -2.9%, 720p -0.2%, 1080p +0.8%.
    static let qualityAnchors: [(quality: Int, colors: Int, threshold: Int, lossy: Int, paletteError: Int)] = [
        (100, 256, 0, 0, 0), (95, 256, 1, 20, 30), (90, 256, 2, 40, 60), (75, 192, 2, 80, 90), (50, 128, 2, 135, 100),
        (40, 128, 20, 200, 150), (25, 64, 60, 300, 200), (12, 48, 60, 500, 200), (1, 32, 2000, 1000, 200),
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
    /// those given (`givenSettings`) or already set away from their defaults (the caller's win), and records `quality`.
    public mutating func apply(quality: Int) {
        self = moving(from: GIFSettings(GIFOptions()), to: quality)
    }

    /// These options with the settings `quality` picked at another level: those `quality`
    /// picked (or left at their defaults when it is nil) move, those given explicitly stay.
    func moved(toQuality level: Int) -> GIFOptions {
        moving(from: quality.map(Self.settings(forQuality:)) ?? GIFSettings(GIFOptions()), to: level)
    }

    /// These options at `level`'s settings, except those given or away from `from` (what they were picked as).
    private func moving(from: GIFSettings, to level: Int) -> GIFOptions {
        let picked = Self.settings(forQuality: level)
        var moved = self
        if colors == from.colors && !givenSettings.contains(.colors) { moved.colors = picked.colors }
        if dither == from.dither && !givenSettings.contains(.dither) { moved.dither = picked.dither }
        if changeThreshold == from.changeThreshold && !givenSettings.contains(.changeThreshold) { moved.changeThreshold = picked.changeThreshold }
        if lossy == from.lossy && !givenSettings.contains(.lossy) { moved.lossy = picked.lossy }
        if paletteError == from.paletteError && !givenSettings.contains(.paletteError) { moved.paletteError = picked.paletteError }
        moved.quality = level
        return moved
    }
}
