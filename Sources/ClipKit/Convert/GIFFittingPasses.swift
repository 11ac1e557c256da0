// `--max-bytes` passes: the `--quality` levels of a `FitSearch`, then (nothing fits) the widths
// below, each predicted from the sizes the passes reached; the quality floor's retries.
import Foundation

/// What became of one pass over the input.
enum PassOutcome {
    /// Every output is in place.
    case written(ConversionResult)
    /// The GIF does not fit the byte limit, or (`mayStopUnder`) is projected far under it;
    /// nothing was written.
    case missed(FitProbe)
    /// The GIF measures below `GIFOptions.minQuality`; nothing was written.
    case belowFloor(GIFResult)
}

extension ConversionRun {
    /// How many times a GIF that fits but measures below `minQuality` is made again, each time 3/4 as wide.
    static let floorRetries = 3

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
                guard retries < Self.floorRetries, width >= FitSearch.smallestWidth else { throw belowFloor(low) }
                retries += 1
                attempt.size = .width(width)
                try options.limits.checkDeadline(path)
            case .missed:
                throw ClipKitError.internalFailure(path: path, reason: "a --max-bytes pass ended undecided")
            }
        }
    }

    /// The `--quality` levels of a `FitSearch` (from `--quality`, else 100, down to its floor),
    /// then the widths below at the floor level. Returns the first pass that wrote or measured
    /// below the quality floor; throws `cannotFit` when none fits.
    private func fittingPasses(_ asked: GIFOptions, animations: AnimationPlan) throws -> PassOutcome {
        guard let maxBytes = asked.maxBytes else { return try pass(asked, animations: animations) }
        var levels = FitSearch.levels(limit: maxBytes, top: asked.quality ?? 100)
        // The frame count, once a pass has shown the producer's to be wrong (or missing).
        var frameCount: Int?
        /// One pass for `search` at `value`: what it wrote (or measured below the floor), or nil
        /// with its probe recorded (after dropping what a count that proved wrong projected).
        func attempt(_ options: GIFOptions, at value: Int, in search: inout FitSearch, mayStopUnder: Bool,
                     mayStopEarly: Bool = true) throws -> PassOutcome? {
            try options.limits.checkDeadline(path)
            let outcome = try pass(options, animations: animations, mayStopUnder: mayStopUnder, mayStopEarly: mayStopEarly,
                                   frameCount: frameCount)
            guard case .missed(let probe) = outcome else { return outcome }
            if let frames = probe.frames {
                frameCount = frames
                search.forgetProjections()
            }
            search.record(probe, at: value)
            return nil
        }
        while let level = levels.next() {
            let options = asked.moved(toQuality: level)
            // Levels whose settings are all given explicitly are the same GIF: over once, over always.
            if let known = levels.probes.first(where: { $0.probe.over && GIFSettings(asked.moved(toQuality: $0.value)) == GIFSettings(options) }) {
                levels.record(known.probe, at: level, ran: false)
                continue
            }
            let mayStopUnder = levels.mayStopUnder(at: level)
            if let done = try attempt(options, at: level, in: &levels, mayStopUnder: mayStopUnder) { return done }
        }
        guard let over = levels.lowestOver else {
            throw ClipKitError.internalFailure(path: path, reason: "a --max-bytes search ended without a pass")
        }
        // Past the lowest level: a narrower picture at that level. (Fewer colours and a coarser
        // threshold lost 10-18 SSIMULACRA2 points against the width giving the same bytes on the
        // 10 s 720p scene.) When passes ran out above the floor, its size from the curve.
        var miss = over.probe
        if over.value != levels.bottom {
            miss.bytes = Int(Double(miss.bytes) * exp(FitSearch.logSize(levels.bottom) - FitSearch.logSize(over.value)))
        }
        var smaller = asked.moved(toQuality: levels.bottom)
        var widths = FitSearch.widths(limit: maxBytes, below: miss)
        var verified = false
        while true {
            while let width = widths.next() {
                smaller.size = .width(width)
                let mayStopUnder = widths.mayStopUnder(at: width)
                if let done = try attempt(smaller, at: width, in: &widths, mayStopUnder: mayStopUnder) { return done }
            }
            // "Nothing fits" rests on a pass whose own bytes passed the limit, never on a
            // projection alone (the count it projects with may be wrong: a cut file's index
            // promises frames that are not there). Once, the narrowest is written to its end
            // (its exact size, and the frame count).
            guard let narrowest = widths.lowestOver, !narrowest.probe.pastLimit, !verified else {
                throw noFit(widths.lowestOver?.probe ?? miss, level: levels.bottom, limit: maxBytes)
            }
            verified = true
            smaller.size = .width(narrowest.value)
            // (A count that proved wrong sends the search on with the right one.)
            if let done = try attempt(smaller, at: narrowest.value, in: &widths, mayStopUnder: true, mayStopEarly: false) { return done }
            // Its exact size may be far from what the projections said (a clip calm at first and
            // busy later): the widths below are searched afresh from it, with passes of their own.
            if let exact = widths.lowestOver?.probe, exact.complete, exact.width > FitSearch.smallestWidth {
                widths = FitSearch.widths(limit: maxBytes, below: exact)
            }
        }
    }

    private func belowFloor(_ low: GIFResult) -> ClipKitError {
        .cannotFit(path: path, reason: String(
            format: "no GIF of SSIMULACRA2 %.3g or more fits in %d bytes; the one that fits measures %.1f (%d bytes, %dx%d, lossy %d, %d colours): raise --max-bytes, lower --min-quality, or lower --fps or --duration",
            options.minQuality ?? 0, options.maxBytes ?? 0, low.ssimulacra2 ?? 0, low.bytes, low.width, low.height, low.settings.lossy, low.settings.colors))
    }

    private func noFit(_ miss: FitProbe, level: Int, limit: Int) -> ClipKitError {
        let size = miss.complete ? "is \(miss.bytes) bytes" : "is about \(miss.bytes) bytes (projected)"
        return .cannotFit(path: path, reason: "no GIF fits in \(limit) bytes: the smallest clipkit made \(size) (\(miss.width)x\(miss.height), --quality \(level)); raise --max-bytes, or lower --fps or --duration")
    }
}
