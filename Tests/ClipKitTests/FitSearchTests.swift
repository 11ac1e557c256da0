// `--max-bytes`'s search over levels and widths, against made-up size curves: it ends, never
// tries a value twice, and keeps the highest value that fits.
import Foundation
import Testing
@testable import ClipKit

@Suite struct FitSearchTests {
    /// Runs `search` against `size` as the passes would: a pass stops over when the size is over
    /// the limit, under when it may and the projection (`size` times `bias`) is under
    /// `GIFPassWriter.underShare` of it, else writes. Returns the value written (nil: none fits)
    /// and the values tried.
    func drive(_ search: inout FitSearch, size: (Int) -> Int, bias: Double = 1) -> (written: Int?, tried: [Int]) {
        var tried: [Int] = []
        while let value = search.next() {
            tried.append(value)
            let bytes = size(value), projected = Int(Double(bytes) * bias)
            if bytes > search.limit {
                search.record(FitProbe(bytes: max(projected, search.limit + 1), width: 480, height: 270, over: true, complete: false), at: value)
            } else if search.mayStopUnder(at: value), Double(projected) < GIFPassWriter.underShare * Double(search.limit) {
                search.record(FitProbe(bytes: projected, width: 480, height: 270, over: false, complete: false), at: value)
            } else {
                return (value, tried)
            }
            #expect(tried.count < 20, "the search does not end: \(tried)")
            if tried.count >= 20 { break }
        }
        return (nil, tried)
    }

    /// A clip's bytes at each level: the table's shape times a scale, bent by `skew` (another
    /// clip's curve is steeper or flatter than the median's).
    func levelSizes(scale: Double, skew: Double) -> (Int) -> Int {
        { level in Int(scale * exp(FitSearch.logSize(level) * skew)) }
    }

    @Test(arguments: [0.5, 0.8, 1.0, 1.3, 1.9])
    func levelsEndAtTheHighestThatFitsOrTheFloor(skew: Double) {
        for limit in stride(from: 100_000, through: 2_000_000, by: 50_000) {
            for bias in [0.92, 1.0, 1.08] {
                let size = levelSizes(scale: 600_000, skew: skew)
                var search = FitSearch.levels(limit: limit, top: 100)
                let (written, tried) = drive(&search, size: size, bias: bias)
                #expect(Set(tried).count == tried.count || tried.last == search.settled, "a value tried twice: \(tried)")
                #expect(tried.allSatisfy { (FitSearch.floor...100).contains($0) })
                if let written {
                    #expect(size(written) <= limit)
                    // Within the passes allowed, close to the best: no level more than 10 above fits.
                    #expect(written + 10 >= 100 || size(written + 10) > limit, "limit \(limit): wrote \(written) after \(tried)")
                } else {
                    // Nothing fits only when the floor does not.
                    #expect(size(FitSearch.floor) > limit, "limit \(limit): \(tried)")
                    #expect(search.lowestOver?.value == FitSearch.floor)
                }
                #expect(search.passes <= FitSearch.levels(limit: limit, top: 100).maxPasses + 1)
            }
        }
    }

    @Test func aLevelGivenIsTheTopAndTheStartWhenBelowTheUsualStart() {
        var search = FitSearch.levels(limit: 1_000_000, top: 85)
        #expect(search.next() == 85)
        var low = FitSearch.levels(limit: 1_000_000, top: 20)
        #expect(low.bottom == 20 && low.next() == 20)
        let size = levelSizes(scale: 600_000, skew: 1)
        var roomy = FitSearch.levels(limit: 10_000_000, top: 100)
        // Far under at the start (90): straight up to 100, which fits.
        #expect(drive(&roomy, size: size).written == 100)
    }

    @Test func widthsNarrowUntilTheGIFFits() {
        // Bytes as width^1.2 (smaller pictures compress worse than their area) plus headers.
        let size: (Int) -> Int = { width in 20_000 + Int(pow(Double(width) / 480, 1.2) * 900_000) }
        for limit in [60_000, 150_000, 400_000, 800_000] {
            var search = FitSearch.widths(limit: limit, below: FitProbe(bytes: size(480), width: 480, height: 270, over: true, complete: true))
            let (written, tried) = drive(&search, size: size)
            let width = try! #require(written, "limit \(limit): \(tried)")
            #expect(size(width) <= limit && width < 480)
            #expect(size(width) * 100 >= limit * 80, "limit \(limit): \(width) px, \(size(width)) bytes after \(tried)")
            #expect(tried.count <= search.maxPasses)
            // Odd widths only (libswscale's full chroma), and never one twice.
            #expect(tried.allSatisfy { $0 % 2 == 1 } && Set(tried).count == tried.count, "limit \(limit): \(tried)")
        }
        // A size that jumps by width parity (even widths 8% larger) ends at an odd width close
        // under the limit.
        let jagged: (Int) -> Int = { width in size(width) * (width % 2 == 0 ? 108 : 100) / 100 }
        for limit in stride(from: 100_000, through: 800_000, by: 35_000) {
            var search = FitSearch.widths(limit: limit, below: FitProbe(bytes: jagged(480), width: 480, height: 270, over: true, complete: true))
            let (written, tried) = drive(&search, size: jagged)
            let width = try! #require(written, "limit \(limit): \(tried)")
            #expect(width % 2 == 1 && jagged(width) <= limit && jagged(width) * 100 >= limit * 80, "limit \(limit): \(width) px after \(tried)")
            #expect(tried.count <= search.maxPasses && tried.allSatisfy { $0 % 2 == 1 })
        }
        // Nothing fits at 16 px: the search ends with the narrowest over.
        var tiny = FitSearch.widths(limit: 1_000, below: FitProbe(bytes: size(480), width: 480, height: 270, over: true, complete: true))
        #expect(drive(&tiny, size: size).written == nil)
        // A picture narrower than the smallest width has nowhere to go.
        var narrow = FitSearch.widths(limit: 1_000, below: FitProbe(bytes: 5_000, width: 8, height: 8, over: true, complete: true))
        #expect(narrow.next() == nil)
    }

    @Test func aWrongFrameCountsProjectionsAreForgotten() {
        // Two levels projected over with a count that proved 2.5x too high, then a pass that
        // reached its end far under: the projections go, the exact sizes stay, and the search
        // goes up again from the level that was under.
        var search = FitSearch.levels(limit: 100_000, top: 100)
        #expect(search.next() == 90)
        search.record(FitProbe(bytes: 250_000, width: 160, height: 120, over: true, complete: false), at: 90)
        let second = search.next()
        #expect(second.map { $0 < 90 } == true)
        search.record(FitProbe(bytes: 60_000, width: 160, height: 120, over: false, complete: true, frames: 8), at: second ?? 80)
        search.forgetProjections()
        #expect(search.probes.count == 1 && search.lowestOver == nil)
        #expect(search.next().map { $0 > (second ?? 80) } == true)
        // A value tried again: its latest probe is the one that counts.
        var widths = FitSearch.widths(limit: 10_000, below: FitProbe(bytes: 40_000, width: 160, height: 120, over: true, complete: false))
        widths.record(FitProbe(bytes: 11_000, width: 16, height: 12, over: true, complete: false), at: 16)
        widths.record(FitProbe(bytes: 12_345, width: 16, height: 12, over: true, complete: true, pastLimit: true), at: 16)
        #expect(widths.lowestOver?.probe.bytes == 12_345)
    }

    @Test func projectionCountsTheFirstFrameOnce() {
        // 10 KB first frame, then 1 KB a frame: 3 of 10 written is 12 KB, the whole 19 KB.
        #expect(GIFPassWriter.projection(bytes: 12_000, first: 10_000, done: 3, expected: 10) == 19_000)
        #expect(GIFPassWriter.projection(bytes: 12_000, first: 10_000, done: 10, expected: 10) == 12_000)
        #expect(GIFPassWriter.projection(bytes: 10_000, first: 10_000, done: 1, expected: 10) == 10_000)
    }

    /// The floor is run only when the curve leaves it a chance: projected 2.5x over at level 90
    /// it is surely over (no pass), 2% over it may fit, and once a level was under nothing below it is tried.
    @Test func theFloorIsSkippedOnlyWhenSurelyOver() {
        func search(after bytes: Int, over: Bool) -> FitSearch {
            var levels = FitSearch.levels(limit: 100_000, top: 100)
            #expect(levels.next() == FitSearch.levelStart)
            levels.record(FitProbe(bytes: bytes, width: 480, height: 270, over: over, complete: false), at: FitSearch.levelStart)
            return levels
        }
        let floor = FitSearch.floor
        #expect(search(after: 250_000, over: true).surelyOver(floor))
        // Level 80 is predicted at exp(-0.147) = 0.86 of level 90.
        #expect(!search(after: 93_000 * 116 / 100, over: true).surelyOver(floor))
        // Predicted at 100% of the limit: over the aim (95%), not run.
        #expect(search(after: 100_000 * 116 / 100, over: true).surelyOver(floor))
        #expect(!search(after: 80_000, over: false).surelyOver(floor))
        // Never at or above the lowest value over.
        #expect(!search(after: 250_000, over: true).surelyOver(FitSearch.levelStart))
    }

    @Test func widthsBelowAnOverThatStoppedEarlyFollowThePassesThatEnded() {
        // calm_end.mp4 at its default's size, exact passes: 151 px stopped past the limit at 26
        // of 40 frames, projected at 1.5x it (the calm end costs little); 45 and 109 px ran to
        // their end. Their slope (0.90) puts 95% of the limit near 135 px; the over's projection
        // (slope 2.0 from 109) put it at 119, and the passes crept up to 127 px at 89% of it.
        var widths = FitSearch.widths(limit: 51_296, below: FitProbe(bytes: 77_482, width: 151, height: 113, over: true,
                                                                        complete: false, pastLimit: true))
        widths.record(FitProbe(bytes: 18_153, width: 45, height: 34, over: false, complete: true), at: 45)
        widths.record(FitProbe(bytes: 40_096, width: 109, height: 82, over: false, complete: true), at: 109)
        let next = widths.next()
        #expect(next.map { (131...139).contains($0) } == true, "\(String(describing: next))")
        // One pass that ended is not a slope: from the over, as before.
        var one = FitSearch.widths(limit: 51_296, below: FitProbe(bytes: 77_482, width: 151, height: 113, over: true,
                                                                     complete: false, pastLimit: true))
        one.record(FitProbe(bytes: 40_096, width: 109, height: 82, over: false, complete: true), at: 109)
        #expect(one.next().map { $0 < 125 } == true)
    }

    @Test func aGuessFromBelowThatCameOutOverHalvesTheGap() {
        // fps60.mkv (64x48) at a quarter of its default's size, 16 px wide, the levels under 80,
        // every pass run to its end or to the limit: the curve is far steeper from 34 to 46 than
        // from 1 to 34, so each guess from the two below (34 and 1) came out over, one level
        // lower each time (46, 45, 44), and the passes ran out at 34: 80% of the limit.
        var lower = FitSearch.levels(below: FitSearch.floor, limit: 1_813)!
        #expect(lower.next() == 1)
        lower.record(FitProbe(bytes: 614, width: 16, height: 12, over: false, complete: true), at: 1)
        lower.record(FitProbe(bytes: 2_116, width: 16, height: 12, over: true, complete: false, pastLimit: true), at: 46)
        lower.record(FitProbe(bytes: 1_456, width: 16, height: 12, over: false, complete: true), at: 34)
        lower.record(FitProbe(bytes: 2_106, width: 16, height: 12, over: true, complete: false, pastLimit: true), at: 45)
        // Halfway between 34 and 45 on the curve's coordinate, not 44.
        let next = lower.next()
        #expect(next.map { (38...41).contains($0) } == true, "\(String(describing: next))")
        // A guess that came out under is followed by another guess, not a halving.
        var up = FitSearch.levels(below: FitSearch.floor, limit: 1_813)!
        up.record(FitProbe(bytes: 614, width: 16, height: 12, over: false, complete: true), at: 1)
        up.record(FitProbe(bytes: 2_116, width: 16, height: 12, over: true, complete: false, pastLimit: true), at: 46)
        up.record(FitProbe(bytes: 1_456, width: 16, height: 12, over: false, complete: true), at: 34)
        #expect(up.next().map { $0 > 41 } == true)
    }

    @Test(arguments: [1.5, 2.4, 4.0])
    func aCurveSteeperNearTheLimitStillLandsNearIt(steepness: Double) {
        // Bytes from level 1 to 34 as the median clip's, steeper above 34; exact passes (each
        // runs to its end, or stops past the limit), as the levels under the floor are run.
        let c1 = FitSearch.logSize(1), c34 = FitSearch.logSize(34)
        let size: (Int) -> Int = { level in
            let c = FitSearch.logSize(level)
            return Int(c <= c34 ? 614 * exp(1.02 * (c - c1)) : 1_456 * exp(steepness * (c - c34)))
        }
        for limit in stride(from: 1_500, through: 2_400, by: 100) {
            var lower = FitSearch.levels(below: FitSearch.floor, limit: limit)!
            var tried: [Int] = [], written: Int?
            while let level = lower.next(), tried.count < 12 {
                tried.append(level)
                let bytes = size(level)
                if bytes > limit {
                    lower.record(FitProbe(bytes: bytes, width: 16, height: 12, over: true, complete: false, pastLimit: true), at: level)
                } else if level != lower.settled, lower.mayStopUnder(at: level), Double(bytes) < GIFPassWriter.underShare * Double(limit) {
                    lower.record(FitProbe(bytes: bytes, width: 16, height: 12, over: false, complete: true), at: level)
                } else {
                    written = level
                    break
                }
            }
            let level = try! #require(written, "limit \(limit): \(tried)")
            // Near the limit within the passes, each level tried once (a settled one is written
            // again). Guessing from below alone ended as low as half of it: 18 after 1, 77, 18,
            // 75, 74 (the passes out) at 2,300 B, where level 40 was at 77%.
            #expect(size(level) <= limit && size(level) * 10 >= limit * 8, "limit \(limit): \(level) at \(size(level)) B after \(tried)")
            #expect(Set(tried).count == tried.count || tried.last == lower.settled, "\(tried)")
        }
    }
}
