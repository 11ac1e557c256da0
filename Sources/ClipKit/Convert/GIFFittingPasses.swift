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
    /// How many times a GIF that fits but measures below `minQuality` is made again, each time 3/4 as wide (odd).
    static let floorRetries = 3

    /// `--max-bytes`: the passes of `fittingPasses`; when the GIF that fits measures below the
    /// quality floor, again with a picture 3/4 as wide (a smaller picture needs less loss to fit).
    func convertFitting(animations: AnimationPlan) throws -> ConversionResult {
        var attempt = options
        var retries = 0
        // The first pass's decode, which the passes after it take over while it goes on.
        let fit = FitDecode()
        defer { fit.stop() }
        while true {
            switch try fittingPasses(attempt, animations: animations, fit: fit) {
            case .written(let result):
                return result
            case .belowFloor(let low):
                // Odd, as the widths' search (`FitSearch.widths`): full-resolution chroma.
                let narrower = Int((Double(low.width) * 0.75).rounded(.down))
                let width = narrower % 2 == 0 ? narrower - 1 : narrower
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
    private func fittingPasses(_ asked: GIFOptions, animations: AnimationPlan, fit: FitDecode) throws -> PassOutcome {
        guard let maxBytes = asked.maxBytes else { return try pass(asked, animations: animations) }
        var levels = FitSearch.levels(limit: maxBytes, top: asked.quality ?? 100)
        // The frame count, once a pass has shown the producer's to be wrong (or missing).
        var frameCount: Int?
        // Once projections have proved wrong for this clip (one value projected under and over,
        // a value expected under found over, or a pass that could stop early running to its end
        // far under), every pass is exact: it runs to its end or until its own bytes pass the
        // limit. Slower, never misled (a clip black or calm at first projects far under or over
        // from its first 30%).
        var exact = false
        // A pass has just shown what the passes before it projected to be wrong: it learned the
        // frame count (the container's was wrong), or projections proved misleading. Their
        // passes are given back, and levels judged over only by projection are searched again.
        var recounted = false
        // The exact top level has been tried for a flat curve.
        var flatTried = false
        /// One pass for `search` at `value`: what it wrote (or measured below the floor), or nil
        /// with its probe recorded (after dropping what a count or projections that proved
        /// wrong said).
        func attempt(_ options: GIFOptions, at value: Int, in search: inout FitSearch, mayStopUnder: Bool) throws -> PassOutcome? {
            try options.limits.checkDeadline(path)
            // At the top with nothing over, a GIF that fits is the answer, however far under.
            let keepsUnder = value == search.top && search.lowestOver == nil
            let outcome = try pass(options, animations: animations, mayStopUnder: mayStopUnder, mayStopEarly: !exact, keepsUnder: keepsUnder,
                                   frameCount: frameCount, fit: fit)
            guard case .missed(let probe) = outcome else { return outcome }
            let earlier = search.probes.last { $0.value == value }?.probe
            if let frames = probe.frames {
                // The first time the count proves wrong, the passes that projected with it are
                // not counted against the search either.
                if frameCount == nil { recounted = true }
                frameCount = frames
                search.forgetProjections(uncounting: recounted)
            } else if !exact, (earlier.map { $0.over != probe.over } ?? false) || (value == search.settled && probe.over)
                        || (probe.complete && !probe.over) {
                // (The last: a pass that could stop at its checkpoint ran to its end and came in
                // far under: its projection missed, or the clip was too short to project. A
                // clip calm after moving first: every pass projected 3x over from its first 30%,
                // and the widths ran out at 36% of the limit.)
                exact = true
                recounted = true
                search.forgetProjections(uncounting: true)
            }
            search.record(probe, at: value)
            return nil
        }
        search: while true {
        while let level = levels.next() {
            // The floor, predicted well over from a level above it: no pass; the widths below
            // start from its size on the curve.
            if level == levels.bottom, !exact, levels.surelyOver(level) { break }
            let options = asked.moved(toQuality: level)
            // Levels whose settings are all given explicitly are the same GIF: over once, over always.
            if let known = levels.probes.first(where: { $0.probe.over && GIFSettings(asked.moved(toQuality: $0.value)) == GIFSettings(options) }) {
                levels.record(known.probe, at: level, ran: false)
                continue
            }
            if let done = try attempt(options, at: level, in: &levels, mayStopUnder: levels.mayStopUnder(at: level)) { return done }
        }
        guard let over = levels.lowestOver else {
            throw ClipKitError.internalFailure(path: path, reason: "a --max-bytes search ended without a pass")
        }
        // The levels bought no bytes (flat synthetic pictures whose colours all fit: lossy LZW
        // only adds error the next frames redraw): the exact top level, often smaller, is tried
        // once, exactly, before the picture is made narrower. (A counter clip at 9,000 B: 90 and 80 both
        // 9,241 B, 100 8,695 B, where a 140 px GIF was written.)
        if over.value == levels.bottom, levels.top > FitSearch.levelStart, !flatTried,
           let start = levels.probes.last(where: { $0.value == FitSearch.levelStart && $0.probe.over }),
           Double(over.probe.bytes) >= 0.97 * Double(start.probe.bytes),
           !levels.probes.contains(where: { $0.value == levels.top }) {
            flatTried = true
            let outcome = try pass(asked.moved(toQuality: levels.top), animations: animations, mayStopEarly: false, frameCount: frameCount,
                                   fit: fit)
            if case .missed = outcome {} else { return outcome }
        }
        // Past the lowest level: a narrower picture at that level. (Fewer colours and a coarser
        // threshold lost 10-18 SSIMULACRA2 points against the width giving the same bytes on the
        // 10 s 720p scene.) When the floor was not run (surely over, or passes ran out above
        // it), its size from the curve.
        var miss = over.probe
        if over.value != levels.bottom {
            // An estimate now, for the widths' first guess: never quoted, never taken as over for certain.
            miss.bytes = Int(Double(miss.bytes) * exp(FitSearch.logSize(levels.bottom) - FitSearch.logSize(over.value)))
            (miss.complete, miss.pastLimit) = (false, false)
        }
        var smaller = asked.moved(toQuality: levels.bottom)
        var widths = FitSearch.widths(limit: maxBytes, below: miss)
        var triedNarrowest = false
        while true {
            while let width = widths.next() {
                smaller.size = .width(width)
                recounted = false
                if let done = try attempt(smaller, at: width, in: &widths, mayStopUnder: widths.mayStopUnder(at: width)) { return done }
                // The levels were judged over with a count (or projections) that proved wrong:
                // they are searched again before the picture is made narrower; exactly, from the
                // floor up (a 701 s clip's exact passes take 2 s each: 90, 84, 80 and 100 were
                // run again where 80 alone showed them over).
                if recounted, !levels.probes.contains(where: { $0.probe.over && ($0.probe.complete || $0.probe.pastLimit) }) {
                    if exact {
                        levels = FitSearch.levels(limit: maxBytes, top: levels.top, exact: true)
                    } else {
                        levels.forgetProjections(uncounting: true)
                    }
                    continue search
                }
            }
            // "Nothing fits" rests only on the narrowest picture passing the limit by its own
            // bytes. When the search ended above it (its passes ran out, or projections misled
            // it), the narrowest is tried once, exactly; under the limit, the widths between it
            // and the lowest over are searched again, exactly.
            let narrowest = widths.bottom
            if let known = widths.probes.last(where: { $0.value == narrowest })?.probe, known.over, known.pastLimit || known.complete {
                // The levels below the floor at that width, before "nothing fits": at a few dozen
                // pixels the colour table is most of the bytes (a 160x90 still at 900 B: 16 px
                // wide, level 80 takes 966 B, 144 colours in a 256-entry table; level 40 548 B).
                // Level 1 first, the smallest GIF clipkit makes: over, nothing fits.
                var narrow = asked
                narrow.size = .width(narrowest)
                guard var lower = FitSearch.levels(below: levels.bottom, limit: maxBytes),
                      GIFSettings(narrow.moved(toQuality: lower.bottom)) != GIFSettings(narrow.moved(toQuality: levels.bottom)) else {
                    throw noFit(known, level: levels.bottom, limit: maxBytes)
                }
                exact = true
                while let level = lower.next() {
                    if let done = try attempt(narrow.moved(toQuality: level), at: level, in: &lower,
                                              mayStopUnder: lower.mayStopUnder(at: level)) { return done }
                }
                throw noFit(lower.probes.first { $0.value == lower.bottom }?.probe ?? known, level: lower.bottom, limit: maxBytes)
            }
            guard !triedNarrowest else {
                throw noFit(widths.lowestOver?.probe ?? miss, level: levels.bottom, limit: maxBytes)
            }
            triedNarrowest = true
            exact = true
            smaller.size = .width(narrowest)
            // From the narrowest up to the lowest width known over for certain (a projection may
            // have been wrong), else the full width.
            let certain = widths.probes.filter { $0.probe.over && ($0.probe.pastLimit || $0.probe.complete) && $0.value > narrowest }
            // (Exact passes, bracketed by the narrowest: a few more of them to converge.)
            var again = FitSearch.widths(limit: maxBytes, below: certain.min { $0.value < $1.value }?.probe ?? miss, maxPasses: FitSearch.exactPasses)
            if let done = try attempt(smaller, at: narrowest, in: &again, mayStopUnder: true) { return done }
            widths = again
        }
        }
    }

    private func belowFloor(_ low: GIFResult) -> ClipKitError {
        .cannotFit(path: path, reason: String(
            format: "no GIF of SSIMULACRA2 %.3g or more fits in %d bytes; the one that fits measures %.1f (%d bytes, %dx%d, lossy %d, %d colours): raise --max-bytes, lower --min-quality, or lower --fps or --duration",
            options.minQuality ?? 0, options.maxBytes ?? 0, low.ssimulacra2 ?? 0, low.bytes, low.width, low.height, low.settings.lossy, low.settings.colors))
    }

    /// "No GIF fits", with what is known for certain of the narrowest picture: its exact size,
    /// or that its own bytes passed the limit (a projection is never quoted: a container's
    /// duration or a calm start can put it off by a factor of hundreds).
    private func noFit(_ miss: FitProbe, level: Int, limit: Int) -> ClipKitError {
        let size = miss.complete ? "is \(miss.bytes) bytes" : "passes \(limit) bytes before its end"
        // Fewer or shorter frames cannot help a GIF whose first frame alone is too large.
        let advice = miss.written <= 1 ? "raise --max-bytes" : "raise --max-bytes, or lower --fps or --duration"
        return .cannotFit(path: path, reason: "no GIF fits in \(limit) bytes: the smallest clipkit makes (\(miss.width)x\(miss.height), --quality \(level)) \(size); \(advice)")
    }
}
