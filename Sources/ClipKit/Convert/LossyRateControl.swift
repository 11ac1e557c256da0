// `--max-bytes`: a pass projected a little over the limit raises lossy LZW on its remaining
// frames to land under it, one a little under lowers it to land nearer, instead of another pass.
import Foundation

/// Rate control for the rest of one `--max-bytes` pass. Lossy LZW is the writer's own setting,
/// so it can change from one image to the next without the quantiser knowing (it already follows
/// what the writer shows). The pass still stops as before (projected over 1.01 of the limit, or
/// past it, or under `reachShare` at the checkpoint), so the control never makes a pass run
/// longer; it turns a pass that would end a little over into one that fits, and one a little
/// under into one nearer the limit. From the checkpoint on, after every frame, the whole GIF's size is
/// projected at the mean rate so far (`GIFPassWriter.projection`); when that is over `aim` of
/// the limit, the images after it are written at the level that takes the excess off the rest
/// (bytes fall about as lossy^(-1/4): on the bench clips twice the level took 10-17% off),
/// never over `ceilingFactor` times the pass's own level; when it is under `lowAim`, at the
/// level that adds the shortfall, never under the pass's own over `ceilingFactor`; between the
/// two, at the pass's own. The projection moves
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
/// 0.6% over, now lands under). From below, two more do: a level or width projected at 88-90%
/// at the checkpoint (`reachShare`) used to stop there for a higher one, a third pass; it now
/// goes on less lossy (the screen cut at 75% of its default's size: level 96 lands at 92.4%,
/// the natural cut at 25%: 245 px at 95.2%), and the 10 s 720p clip at 75% lands at 94.9% of
/// the limit instead of 90.5%. (Letting a pass projected up to 3% over go on, for the control
/// to bring under, cost more than it saved: three of the twelve ran to their end and passed
/// the limit there, their later frames busier than their first.)
struct LossyRateControl {
    /// The pass's level, and the most and least its frames may be moved to.
    let base: Int
    let ceiling: Int
    let floor: Int
    /// The level the next images are written with.
    private(set) var lossy: Int
    /// The highest and lowest levels an image was written with.
    private(set) var highest: Int
    private(set) var lowest: Int

    /// What the control aims the whole GIF at, as a share of the limit: from above, and from below.
    static let aim = 0.985
    static let lowAim = 0.95
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
    /// `lowers` false: never less lossy than the pass's own level (the highest the search may
    /// take, which `--quality` caps, is being written however far under the limit).
    init?(options: GIFOptions, lowers: Bool = true) {
        guard options.maxBytes != nil, options.lossy > 0, !options.givenSettings.contains(.lossy) else { return nil }
        base = options.lossy
        ceiling = min(max(Int((Double(base) * Self.ceilingFactor).rounded()), base), GIFOptions.maxLossy)
        floor = lowers ? max(1, Int((Double(base) / Self.ceilingFactor).rounded())) : base
        lossy = base
        highest = base
        lowest = base
    }

    /// The least share of the limit a pass may be projected at (at its checkpoint) and still be
    /// brought within `GIFPassWriter.underShare` of it by lowering its later frames' level: with
    /// 70% of the frames left at `floor`, they take about 1.5^(1/4) = 1.107 times the bytes, so
    /// the whole about 1.075 times; 0.87 lands near 0.93.
    static let reachShare = 0.87

    /// With `bytes` written and `projected` for the whole GIF: the level for the next images.
    mutating func update(projected: Int, bytes: Int, limit: Int) -> Int {
        let rest = Double(projected - bytes)
        guard rest > 0 else { return lossy }
        // The share of the rest's bytes to take off, or to add.
        let excess = (Double(projected) - Self.aim * Double(limit)) / rest
        let shortfall = (Self.lowAim * Double(limit) - Double(projected)) / rest
        var target = Double(base)
        if excess > 0 {
            target = Double(base) * pow(1 / (1 - min(excess, 0.9)), Self.exponent)
        } else if shortfall > 0 {
            target = Double(base) * pow(1 / (1 + shortfall), Self.exponent)
        }
        lossy = min(max(Int(target.rounded()), floor), ceiling)
        highest = max(highest, lossy)
        lowest = min(lowest, lossy)
        return lossy
    }
}
