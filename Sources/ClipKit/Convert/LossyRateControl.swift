// `--max-bytes`: a pass projected a little over the limit raises lossy LZW on its remaining
// frames to land under it, instead of being stopped for a whole pass at a lower level.
import Foundation

/// Rate control for the rest of one `--max-bytes` pass. Lossy LZW is the writer's own setting,
/// so it can change from one image to the next without the quantiser knowing (it already follows
/// what the writer shows). The pass still stops as before (projected over 1.01 of the limit, or
/// past it), so the control never makes a pass run longer; it turns a pass that would end a
/// little over into one that fits. From the checkpoint on, after every frame, the whole GIF's size is
/// projected at the mean rate so far (`GIFPassWriter.projection`); when that is over `aim` of
/// the limit, the images after it are written at the level that takes the excess off the rest
/// (bytes fall about as lossy^(-1/4): on the bench clips twice the level took 10-17% off),
/// never under the pass's own level nor over `ceilingFactor` times it. The projection moves
/// slowly (a mean over the pass), so the level does too; near the end the bytes written weigh
/// most and the level rises if the pass is still over. Decided from the writer's bytes at fixed
/// frames, so the GIF is the same at any `--jobs`.
///
/// Why: a level whose GIF ended a little over the limit cost a whole pass at the next level
/// down. The 60 s 1080p bench clip at 75% of its default size ran level 90 to frame 597 of 600,
/// 0.6% over, then level 85 from the start: 22.4 s against a 9.1 s default, SSIMULACRA2 67.2.
/// Under this control level 90 lands at 98.5% of the limit in one pass (its level 40-48 through
/// most of the clip, up to 60 in the last seconds): 11.4 s, 68.7. On the 3 s cuts three of
/// the twelve fits take a pass fewer (a level or width that stopped 1.2-1.4% over, or ended
/// 0.6% over, now lands under).
struct LossyRateControl {
    /// The pass's level, and the most its frames may be raised to.
    let base: Int
    let ceiling: Int
    /// The level the next images are written with.
    private(set) var lossy: Int
    /// The highest level an image was written with.
    private(set) var highest: Int

    /// What the control aims the whole GIF at, as a share of the limit.
    static let aim = 0.985
    /// The most the level is raised, as a factor. Twice the level left the last frames of a
    /// 3 s cut visibly noisier than the first (natural video at 75%: the sky speckled at 134
    /// against 67; SSIMULACRA2 5th percentile 62.4 against a mean of 67.9); 1.5x kept them
    /// within 2.6 points (65.8 against 68.4).
    static let ceilingFactor = 1.5
    /// Bytes scale about as lossy^(-1/exponent).
    static let exponent = 4.0

    /// A control for a pass with `options`; nil without `--max-bytes`, when lossy LZW is off
    /// (the quantiser then keeps pixels against its own canvas, so the writer must write what it
    /// quantised) or when it was given explicitly (`--lossy` given with `--max-bytes` stays).
    init?(options: GIFOptions) {
        guard options.maxBytes != nil, options.lossy > 0, !options.givenSettings.contains(.lossy) else { return nil }
        base = options.lossy
        ceiling = min(max(Int((Double(base) * Self.ceilingFactor).rounded()), base), GIFOptions.maxLossy)
        lossy = base
        highest = base
    }

    /// With `bytes` written and `projected` for the whole GIF: the level for the next images.
    mutating func update(projected: Int, bytes: Int, limit: Int) -> Int {
        let rest = Double(projected - bytes)
        guard rest > 0 else { return lossy }
        // The share of the rest's bytes to take off.
        let excess = (Double(projected) - Self.aim * Double(limit)) / rest
        let target = excess > 0 ? Double(base) * pow(1 / (1 - min(excess, 0.9)), Self.exponent) : Double(base)
        lossy = min(max(Int(target.rounded()), base), ceiling)
        highest = max(highest, lossy)
        return lossy
    }
}
