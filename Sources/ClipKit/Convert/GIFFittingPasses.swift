// `--max-bytes` passes: the lossy ladder at a fine change threshold, then (nothing fits) widths
// fitted to the sizes the passes reached; the quality floor's retries.
import Foundation

/// What became of one pass over the input.
enum PassOutcome {
    /// Every output is in place.
    case written(ConversionResult)
    /// Writers stopped early were needed after all: the pass must run again without early stops.
    case prunedTooEarly
    /// No lossy level of the pass fits the byte limit; nothing was written.
    case doesNotFit(FitMiss)
    /// The GIF chosen measures below `GIFOptions.minQuality` (the more lossy ones measure lower
    /// still); nothing was written.
    case belowFloor(GIFResult)
}

extension ConversionRun {
    /// How many times a GIF that fits but measures below `minQuality` is made again, each time 3/4 as wide.
    static let floorRetries = 3
    /// Passes after the second with a width fitted to the ones before.
    static let fittedPasses = 3
    /// `--max-bytes` does not go below this width.
    static let smallestFittingWidth = 16

    /// `--max-bytes`: the passes of `fittingPasses`; when the GIF that fits measures below the
    /// quality floor, again with a picture 3/4 as wide (a smaller picture needs less loss to fit).
    func convertFitting(animations: AnimationPlan) throws -> ConversionResult {
        var attempt = options
        var retries = 0
        while true {
            switch try fittingPasses(attempt, animations: animations) {
            case .written(let result):
                return result
            case .belowFloor(let low):
                let width = Int((Double(low.width) * 0.75).rounded(.down))
                guard retries < Self.floorRetries, width >= Self.smallestFittingWidth else { throw belowFloor(low) }
                retries += 1
                attempt.size = .width(width)
                try options.limits.checkDeadline(path)
            case .prunedTooEarly, .doesNotFit:
                throw ClipKitError.internalFailure(path: path, reason: "a --max-bytes pass ended undecided")
            }
        }
    }

    /// The pass with the options asked for (at `GIFOptions.fittingThreshold` unless `--threshold`
    /// was given), then up to 1 + `fittedPasses` smaller widths. Returns the first pass that
    /// wrote or measured below the floor; throws `cannotFit` when none fits.
    private func fittingPasses(_ asked: GIFOptions, animations: AnimationPlan) throws -> PassOutcome {
        guard let maxBytes = asked.maxBytes else { return try pass(asked, animations: animations) }
        var options = asked
        if options.changeThreshold == GIFOptions().changeThreshold { options.changeThreshold = GIFOptions.fittingThreshold }
        let first = try pass(options, animations: animations)
        guard case .doesNotFit(let miss) = first else { return first }
        // Past the most lossy level: a smaller picture, with the same colours and threshold.
        // Fewer colours and a coarser threshold (what this pass did before) lost 10-18
        // SSIMULACRA2 points more than the width giving the same bytes on the 10 s 720p scene.
        var smaller = options
        // Aim the second pass at 93% of the limit. Bytes follow the area to a power below 1
        // (smaller pictures compress worse): 0.73-0.76 on the 10 s bench clip, 0.55-0.6 on the
        // motion fixture, from full width down to half. The lower figure is taken (width =
        // ratio^(1/1.2)): a picture a little too small is made up by the ladder choosing less
        // loss, one a little too large costs a third pass. A projection from 40% of the clip
        // ran 8% low on the bench clip (its second half is busier). At least 5% narrower, so
        // the pass is never the first one again.
        let estimate = Double(miss.smallest) / (miss.projected ? 0.92 : 1)
        let ratio = 0.93 * Double(maxBytes) / estimate
        let width = Int((Double(miss.width) * min(pow(ratio, 1 / 1.2), 0.95)).rounded(.down))
        guard width >= Self.smallestFittingWidth else { throw noFit(miss, limit: maxBytes) }
        smaller.size = .width(width)
        let second = try pass(smaller, animations: animations)
        guard case .doesNotFit(var last) = second else { return second }
        // Each frame's colour table and headers do not shrink with the picture: fit
        // bytes = fixed + k * area through the last two passes and aim the next at 90% of
        // the limit (two passes at one size: bytes taken as proportional to the area). Up to
        // three such passes, each narrower than the last.
        var before = miss
        for _ in 0..<Self.fittedPasses {
            let a1 = Double(before.width * before.height), a2 = Double(last.width * last.height)
            let target = 0.9 * Double(maxBytes)
            var area = a2 * target / Double(last.smallest)
            if a1 != a2 {
                let k = (Double(before.smallest) - Double(last.smallest)) / (a1 - a2)
                let fixed = Double(last.smallest) - k * a2
                if k > 0, target > fixed { area = (target - fixed) / k }
            }
            let width = Int((Double(last.width) * (area / a2).squareRoot()).rounded(.down))
            guard width >= Self.smallestFittingWidth, width < last.width else { break }
            smaller.size = .width(width)
            try options.limits.checkDeadline(path)
            let next = try pass(smaller, animations: animations)
            guard case .doesNotFit(let miss) = next else { return next }
            (before, last) = (last, miss)
        }
        throw noFit(last, limit: maxBytes)
    }

    private func belowFloor(_ low: GIFResult) -> ClipKitError {
        .cannotFit(path: path, reason: String(
            format: "no GIF of SSIMULACRA2 %.3g or more fits in %d bytes; the one that fits measures %.1f (%d bytes, %dx%d, lossy %d, %d colours): raise --max-bytes, lower --min-quality, or lower --fps or --duration",
            options.minQuality ?? 0, options.maxBytes ?? 0, low.ssimulacra2 ?? 0, low.bytes, low.width, low.height, low.settings.lossy, low.settings.colors))
    }

    private func noFit(_ miss: FitMiss, limit: Int) -> ClipKitError {
        .cannotFit(path: path, reason: "no GIF fits in \(limit) bytes: the smallest clipkit made is \(miss.smallest) bytes (\(miss.width)x\(miss.height), most lossy); raise --max-bytes, or lower --fps or --duration")
    }
}
