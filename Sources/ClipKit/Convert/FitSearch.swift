// `--max-bytes`: which `--quality` level, then which width, the next pass tries, from the sizes
// the passes before reached or projected.
import Foundation

/// A search for the highest value of one knob (the `--quality` level, or the width) whose GIF
/// fits a byte limit: each pass either writes a GIF that fits or stops with a `FitProbe` (over
/// the limit, or projected far under it). The next value is predicted on a curve
/// ln(bytes) = a + slope * `coordinate(value)` through the probes: the slope from the two that
/// bracket the limit when there are both, else `nominalSlope`; once the last value tried came
/// out over, the middle (in `coordinate`) of the highest under and the lowest over instead.
/// Values known to be over, or under, are never tried again, so the search ends: at a value
/// that fits, or with the lowest value over at `bottom` (nil from `next()`).
struct FitSearch {
    let limit: Int
    /// The knob's range (`top` gives the largest GIF) and the first value tried.
    let top: Int
    let bottom: Int
    let start: Int
    let coordinate: (Int) -> Double
    let nominalSlope: Double
    /// Passes allowed (raised to `exactPasses` once projections have misled: `forgetProjections`).
    var maxPasses: Int
    /// The values a pass may run at (all but the widths' even ones: `widths`).
    var allows: (Int) -> Bool = { _ in true }
    /// What a probe at `top` is taken for in predictions: an even full width is scaled to the
    /// odd widths tried below it (`parityShare`).
    var topShare = 1.0
    /// Bytes at an odd width against the even width beside it, at level 80: the median of the
    /// four bench/rd_eval.py clips at 209-212, 355-356 and 469-470 px (0.92-0.99).
    static let parityShare = 0.97
    /// Passes allowed once every pass is exact: a pass stopped past the limit says only that it
    /// is over, so the search converges more slowly (as the narrowest picture's re-search does,
    /// and the levels under the floor at the narrowest width: `levels(below:)`).
    static let exactPasses = 8
    /// What the next value aims at, as a share of the limit (projections run a few percent low).
    /// With `GIFPassWriter.underShare` 0.90 and `overShare` 1.01 the twelve bench-harness fits
    /// (four clips at 25/50/75% of the default) land at 92.3-99.7% of the limit, 1.4-2.9x the
    /// default's time on the 3 s cuts (best of three; 0.88 gave 89.7-99.7%); with 0.93, 0.8 and
    /// 1.03 at 87.6-99.7%, and a point or two lower where they came in under 90%.
    static let aim = 0.95

    /// Values tried and what they gave.
    private(set) var probes: [(value: Int, probe: FitProbe)] = []
    /// Passes run (probes recorded without a pass do not count).
    private(set) var passes = 0
    /// A value projected under the limit, to be written whatever its projection.
    private(set) var settled: Int?

    /// The `--quality` levels from `top` (the level given, else 100) down to `floor`, from
    /// `levelStart`; `exact`: from the floor up, with `exactPasses` (the passes run to their end:
    /// over at the floor, every level is, a level's bytes rising with it).
    static func levels(limit: Int, top: Int, exact: Bool = false) -> FitSearch {
        let top = min(max(top, 1), 100), bottom = min(floor, top)
        return FitSearch(limit: limit, top: top, bottom: bottom, start: exact ? bottom : min(top, levelStart),
                         coordinate: logSize, nominalSlope: 1, maxPasses: exact ? exactPasses : 5)
    }

    /// The levels below `floor` (the levels' bottom) down to 1, from 1 up: the last resort at
    /// the narrowest width, `exactPasses` of them (each a picture a few dozen pixels wide, run
    /// to its end: the curve there is the clip's own, often far from the median's). nil when
    /// there are none.
    static func levels(below floor: Int, limit: Int) -> FitSearch? {
        guard floor > 1 else { return nil }
        return FitSearch(limit: limit, top: floor - 1, bottom: 1, start: 1, coordinate: logSize, nominalSlope: 1, maxPasses: exactPasses)
    }

    /// The widths below the one whose GIF was `over` (recorded as the first probe): odd ones
    /// (and the narrowest). At an odd width libswscale interpolates chroma at every pixel (it
    /// forces that itself); at an even one it computes one chroma value per pair of pixels, and
    /// those 2-pixel steps cost colours and bytes: at level 80 the bench's 3 s cuts took 1-9%
    /// more bytes at each even width than at the odd one beside it (720p: 462-500 KB
    /// alternating from 460 to 472 px), so the bytes the search predicts from jumped by width
    /// parity (the 720p cut at half its default size: 461 px at 89% of the limit, 470 px 3.8%
    /// over, then 465 px; five passes), and a narrow even picture lost its colour detail
    /// (the 1080p cut scaled back to 480 px scored 42.4 / 28.9 / 41.5 / 29.9 at 209-212 px).
    static func widths(limit: Int, below over: FitProbe, maxPasses: Int = 5) -> FitSearch {
        let top = over.width, bottom = min(smallestWidth, over.width)
        var search = FitSearch(limit: limit, top: top, bottom: bottom, start: top, coordinate: { log(Double($0)) }, nominalSlope: 1.5,
                               maxPasses: maxPasses, allows: { $0 % 2 == 1 || $0 == top || $0 == bottom })
        // The first guess from an even full width (480 by default) aims as if it were odd: taken
        // as it is, the 10 s 720p bench clip at half its default size guessed 447 px, projected
        // at 88% of the limit, and took another pass (at 459 px).
        if top % 2 == 0 { search.topShare = parityShare }
        search.record(over, at: over.width, ran: false)
        return search
    }

    /// The lowest level tried; below it the picture is narrowed at this level. On the four
    /// bench/rd_eval.py clips at 25% and 50% of the default's bytes (SSIMULACRA2 of the GIF
    /// scaled to the source's size, summed over the eight fits): floor 35 260, 60 340, 80 344,
    /// 90 354: a narrower picture loses fewer points than the levels below 80 (whose colours
    /// fall and lossy LZW rises) on natural video; the screen recording alone did better with a
    /// lower floor (at 50%, 52.3 at level 50 full width against 48.1 at 80, 398 wide). 80
    /// keeps the picture at its width where a level of "high" quality (64-74 on those clips) fits.
    static let floor = 80
    /// The first level tried (or `top` when lower): the curve is steep above it (100 draws every
    /// change exactly, 1.4-2x the bytes of 90), so a guess from 100 lands far off.
    static let levelStart = 90
    /// `--max-bytes` does not go below this width.
    static let smallestWidth = 16
    /// Bytes of `--quality` levels, ln(bytes / bytes at 90), at 100 to 95 level by level (the
    /// curve bends there: 100 draws every change exactly), then 90, 85, ..., 5 and 1: the median
    /// of the four bench/rd_eval.py clips (3 s cuts, 480 wide, measured again with lossy LZW's
    /// error diffusion). Only the slope matters: the probes set the scale. (With 95 to 100 as
    /// one straight line, the screen recording at 75% of its default's size projected level 96
    /// at 89.8% of the limit where the line put it at 95%, and took a third pass.)
    static let levelLogSizes: [(level: Int, logSize: Double)] = [
        (100, 0.733), (99, 0.540), (98, 0.422), (97, 0.334), (96, 0.268), (95, 0.214), (90, 0),
        (85, -0.079), (80, -0.147), (75, -0.199), (70, -0.231), (65, -0.252), (60, -0.286), (55, -0.305),
        (50, -0.360), (45, -0.435), (40, -0.511), (35, -0.579), (30, -0.645), (25, -0.720), (20, -0.788),
        (15, -0.843), (10, -0.941), (5, -1.182), (1, -1.438),
    ]

    /// ln(relative bytes) at `level` (1...100), linear between the table's levels.
    static func logSize(_ level: Int) -> Double {
        let q = min(max(level, 1), 100)
        guard let i = levelLogSizes.firstIndex(where: { $0.level <= q }), i > 0 else { return levelLogSizes[0].logSize }
        let (low, high) = (levelLogSizes[i], levelLogSizes[i - 1])
        return low.logSize + (high.logSize - low.logSize) * Double(q - low.level) / Double(high.level - low.level)
    }

    /// The lowest value known over the limit, and its probe (the latest, when it was tried again).
    var lowestOver: (value: Int, probe: FitProbe)? {
        probes.reversed().filter(\.probe.over).min { $0.value < $1.value }
    }

    /// The highest value projected under the limit (a pass that stopped early for it) and not
    /// found over since.
    var highestUnder: (value: Int, probe: FitProbe)? {
        let over = lowestOver?.value ?? top + 1
        return probes.filter { !$0.probe.over && $0.value < over }.max { $0.value < $1.value }
    }

    /// Records what the pass at `value` gave; `ran` is false when no pass ran for it (its
    /// settings equal a value already tried, or it is known from before the search).
    mutating func record(_ probe: FitProbe, at value: Int, ran: Bool = true) {
        probes.append((value, probe))
        if ran { passes += 1 }
    }

    /// Drops the probes whose sizes were projected: a pass learned that the frame count they were
    /// projected with was wrong, or projections misled. A pass stopped by its own bytes passing
    /// the limit stays, over for certain, at the one size certain of it (just over the limit; its
    /// projection could mislead the next guess). `uncounting`: their passes no longer count against `maxPasses`.
    mutating func forgetProjections(uncounting: Bool = false) {
        probes.removeAll { !$0.probe.complete && !$0.probe.pastLimit }
        maxPasses = max(maxPasses, Self.exactPasses)
        for i in probes.indices where !probes[i].probe.complete { probes[i].probe.bytes = limit + 1 }
        if uncounting { passes = min(passes, probes.count) }
    }

    /// Whether a pass at `value` may stop for a projection far under the limit: a higher value
    /// is still untried and passes remain.
    func mayStopUnder(at value: Int) -> Bool {
        value != settled && (value + 1..<max(value + 1, lowestOver?.value ?? top + 1)).contains(where: allows) && passes + 1 < maxPasses
    }

    /// Whether a pass at `value` (below every value tried) is not worth running: from the lowest
    /// value over, on the nominal curve, it is predicted over `hopelessShare` of the limit, so
    /// it would at best land where the search does not aim, and more likely over. (Level 90 of
    /// the 720p cut projected at 2.5x a quarter of its default size; the floor, level 80, was
    /// run to its checkpoint anyway, 496 KB against 241 KB, before the picture was made narrower.)
    func surelyOver(_ value: Int) -> Bool {
        guard let over = lowestOver, value < over.value, highestUnder == nil else { return false }
        let predicted = Double(over.probe.bytes) * exp(nominalSlope * (coordinate(value) - coordinate(over.value)))
        return predicted > Self.hopelessShare * Double(limit)
    }

    /// See `surelyOver`: the aim of every other guess. At 1.05 (over for certain unless the
    /// clip fell 18% from 90 to 80, where the bench clips fell 13-17%) the 720p cut at half its
    /// default's size ran level 80 predicted at 98.8% of the limit; with its rate control it
    /// passed the limit by 0.2% at its last frame, and a third pass (471 px) followed: 3.1x a
    /// default encode's time. Now the widths start from that prediction: 467 px at 95.0%, two
    /// passes, 2.3x; the other eleven bench fits are unchanged.
    static let hopelessShare = aim

    /// The next value to try; nil when the values are spent.
    mutating func next() -> Int? {
        let under = highestUnder
        guard let over = lowestOver else {
            // None over yet: the start, or above the highest value under.
            guard let under else { return probes.isEmpty ? start : nil }
            guard under.value < top else {
                // Under at the top: nothing higher to try, so it is written.
                guard settled != under.value else { return nil }
                settled = under.value
                return under.value
            }
            return highest(in: under.value + 1...top, from: under.value, under.probe.bytes, slope: nominalSlope)
        }
        let low = max(under?.value ?? bottom - 1, bottom - 1)
        guard (low + 1..<over.value).contains(where: allows), passes < maxPasses else {
            // Nothing untried between: write the highest value that was under, without stopping.
            guard let under else { return nil }
            settled = under.value
            return under.value
        }
        if let under, let last = probes.last, last.value == over.value, last.probe.over {
            // The last guess came out over (from the highest value under, or halving the gap):
            // halve the gap in the curve's coordinate, instead of guessing again from below,
            // which crept down a value at a time where the curve is steeper than the guess took
            // it to be.
            let middle = (coordinate(under.value) + coordinate(over.value)) / 2
            return highest(in: low + 1...over.value - 1, atOrUnder: middle)
        }
        if !over.probe.complete, let (high, low) = twoHighestComplete(under: over.value) {
            // The lowest over stopped early (its bytes a projection, which a clip calm after its
            // start puts far over): the slope of the two highest passes that ran to their end
            // under it, from the higher. (calm_end.mp4 at its default's size: from a 151 px pass
            // projected at 1.5x the limit the widths crept up 109, 119, 125, 127 px, and the
            // passes ran out at 89.4% of the limit.)
            let span = coordinate(high.value) - coordinate(low.value)
            let slope = (log(Double(high.probe.bytes)) - log(Double(low.probe.bytes))) / span
            if span > 0, slope > 0.1 {
                return highest(in: high.value + 1...over.value - 1, from: high.value, high.probe.bytes, slope: slope)
            }
        }
        var slope = nominalSlope
        let overBytes = predicted(over.probe.bytes, at: over.value)
        if let under, under.probe.bytes > 0, overBytes > Double(under.probe.bytes) {
            let span = coordinate(over.value) - coordinate(under.value)
            if span > 0 { slope = (log(overBytes) - log(Double(under.probe.bytes))) / span }
        }
        return highest(in: low + 1...over.value - 1, from: over.value, Int(overBytes.rounded()), slope: slope)
    }

    /// The two highest values below `value` whose passes ran to their end under the limit,
    /// higher first, when their bytes rise with the value; nil when there are fewer.
    private func twoHighestComplete(under value: Int) -> (high: (value: Int, probe: FitProbe), low: (value: Int, probe: FitProbe))? {
        let complete = probes.filter { $0.probe.complete && !$0.probe.over && $0.value < value && $0.value != top }
            .sorted { $0.value > $1.value }
        guard complete.count >= 2, complete[0].value > complete[1].value, complete[0].probe.bytes > complete[1].probe.bytes,
              (complete[0].value + 1..<value).contains(where: allows) else { return nil }
        return (complete[0], complete[1])
    }

    /// A probe's bytes at `value` as predictions take them (`topShare` at the top).
    private func predicted(_ bytes: Int, at value: Int) -> Double {
        Double(bytes) * (value == top ? topShare : 1)
    }

    /// The highest value in `range` that `allows` predicted at or under the aim, from `bytes`
    /// at `value` (the lowest allowed of the range when none is; the range holds one).
    private func highest(in range: ClosedRange<Int>, from value: Int, _ bytes: Int, slope: Double) -> Int {
        highest(in: range, atOrUnder: coordinate(value) + (log(Self.aim * Double(limit)) - log(Double(max(bytes, 1)))) / max(slope, 0.1))
    }

    /// The highest value in `range` that `allows` whose coordinate is at or under `wanted` (the
    /// lowest allowed of the range when none is; the range holds one).
    private func highest(in range: ClosedRange<Int>, atOrUnder wanted: Double) -> Int {
        // Monotone in the value: bisect for the last value at or under `wanted`.
        var (lo, hi) = (range.lowerBound, range.upperBound)
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if coordinate(mid) <= wanted { lo = mid } else { hi = mid - 1 }
        }
        return (range.lowerBound...lo).last(where: allows) ?? range.first(where: allows) ?? lo
    }
}
