// `--max-bytes`: one decode and quantisation feed LZW writers at several lossy levels at once; the
// least lossy GIF that fits is kept.
import Foundation

/// Writers stopped early were needed after all (a projection was low): the pass is run again
/// without stopping any, so the choice never depends on the writers' timing.
struct PrunedTooEarly: Error {}

/// No lossy level of one pass fitted the byte limit; `smallest` is the size at the highest level.
struct DoesNotFit: Error {
    var smallest: Int
    var width: Int
    var height: Int
    /// `smallest` is a projection from part of the clip (the pass gave up early).
    var projected = false
}

/// The least lossy GIF that fits the byte limit measures below `GIFOptions.minQuality` (the
/// more lossy ones measure lower still).
struct BelowQualityFloor: Error {
    var result: GIFResult
    var floor: Double
    var limit: Int
}

/// What a ladder writer tells the caller.
enum LadderReport: Sendable {
    /// Its GIF is complete (a temp file) and within the limit.
    case fits(GIFResult)
    /// Its GIF is complete but over the limit (the last level writes on to learn the smallest size).
    case over(GIFResult)
    /// It passed the limit and stopped.
    case stopped
    /// It stopped early: a less lossy writer was on course to fit (see `overtaken`).
    case pruned
    /// The most lossy writer gave up part-way: projected at `bytes`, well over the limit, so no
    /// level of this pass can fit (see `hopeless`).
    case hopeless(bytes: Int, width: Int, height: Int)
    /// It moved its GIF into place.
    case committed
}

/// The fingerprint handed to every writer (a queue element must be one value).
struct FingerprintBox: Sendable {
    var value: Fingerprint?
}

extension GIFConverter {
    /// Lossy levels written side by side for `--max-bytes`. On the bench clips neighbouring levels
    /// differ in size by under 8%, so the least lossy one that fits lies within 90-100% of the limit
    /// whenever the limit is between the level-0 and level-250 sizes.
    static let lossyLadder = [0, 5, 10, 16, 24, 34, 48, 66, 90, 125, 175, 250]

    /// The levels one pass writes: `start` (the `--lossy` asked for) and every ladder level above it.
    static func ladder(from start: Int) -> [Int] {
        [start] + lossyLadder.filter { $0 > start }
    }

    /// Records writer `i`'s projected size and tells whether it may stop: once 40% of the frames
    /// are written, a writer four or more levels above one projected at 80% of the limit or less
    /// is not needed (the three between stay as the margin for a projection that was low). The most lossy writer
    /// always finishes: it tells the smallest size when nothing fits.
    static func overtaken(writer i: Int, of count: Int, bytes: Int, done: Int, expected: Int?, limit: Int,
                          projections: LockedBox<[Int]>) -> Bool {
        guard let expected, expected > 0, done * 5 >= expected * 2 else { return false }
        let projected = bytes * expected / done
        return projections.withLock { sizes in
            sizes[i] = projected
            guard i >= 4, i < count - 1 else { return false }
            return sizes[0...(i - 4)].contains { $0 > 0 && $0 * 100 <= limit * 80 }
        }
    }

    /// Whether the most lossy writer, 40% of the way through, is projected so far over the limit
    /// (15%) that the pass cannot fit: then the next pass starts at once instead of after the
    /// whole clip. Decided from the writer's own bytes at a fixed frame, so never by timing.
    static func hopeless(bytes: Int, done: Int, expected: Int?, limit: Int) -> Int? {
        guard let expected, expected >= 10, done * 5 >= expected * 2, done * 5 < expected * 2 + 5 else { return nil }
        let projected = bytes * expected / max(done, 1)
        return projected * 100 > limit * 115 ? projected : nil
    }

    /// Writes `quantized` at every level of `ladder(from: options.lossy)` at once, each writer on
    /// its own stage thread with a temp file and a budget of `maxBytes` (the last writes on past
    /// it, to learn the smallest size). The least lossy GIF that fits is committed (with the poster
    /// `commitPoster` writes, if any) and the others discarded. Throws `DoesNotFit` when none fits.
    func writeFitting(_ quantized: BoundedQueue<QuantizedMessage>, pipeline: Pipeline, maxBytes: Int, prune: Bool, options: GIFOptions,
                      globalPalette: Palette?, destination: URL, source: String, expectedCount: Int?,
                      fingerprint: () throws -> Fingerprint?,
                      poster: (Fingerprint?) throws -> AtomicFile?) throws -> GIFResult {
        let levels = Self.ladder(from: options.lossy)
        let branches = pipeline.tee("\(stageLabel).ladder", from: quantized, count: levels.count, capacity: 2)
        let fingerprints: [BoundedQueue<FingerprintBox>] = levels.map { _ in pipeline.queue(capacity: 1) }
        let decisions: [BoundedQueue<Bool>] = levels.map { _ in pipeline.queue(capacity: 1) }
        let progress = self.progress
        // Each writer's projected size (bytes so far scaled to the expected frame count), so that
        // writers far more lossy than one already on course to fit can stop early.
        let projections = LockedBox([Int](repeating: 0, count: levels.count))
        let reports = levels.indices.map { i in
            let level = levels[i], isLast = i == levels.count - 1
            let fingerprintQueue = fingerprints[i], decision = decisions[i]
            return pipeline.stage("\(stageLabel).lzw\(level)", from: branches[i], capacity: 2) {
                (input: BoundedQueue<QuantizedMessage>, output: BoundedQueue<LadderReport>) in
                var levelOptions = options
                levelOptions.lossy = level
                let limit = isLast ? options.limits.maxOutputBytes : min(maxBytes, options.limits.maxOutputBytes)
                var writer = GIFWriterStage(destination: destination, source: source, options: levelOptions,
                                            globalPalette: globalPalette, budget: ByteBudget(limit: limit))
                var done = 0
                do {
                    while let message = try input.pop() {
                        try options.limits.checkDeadline(source)
                        switch message {
                        case .frame(let frame):
                            try writer.add(frame)
                            done += 1
                            if i == 0 { progress?(done, expectedCount) }
                            if isLast, let projected = Self.hopeless(bytes: writer.bytesWritten, done: done, expected: expectedCount,
                                                                      limit: maxBytes) {
                                output.push(.hopeless(bytes: projected, width: writer.canvasSize.width, height: writer.canvasSize.height))
                                return
                            }
                            if prune, Self.overtaken(writer: i, of: levels.count, bytes: writer.bytesWritten, done: done,
                                              expected: expectedCount, limit: maxBytes, projections: projections) {
                                output.push(.pruned)
                                return
                            }
                        case .end(let duration, let warnings):
                            guard let box = try fingerprintQueue.pop() else { return }
                            var result = try writer.finish(duration: duration, fingerprint: box.value)
                            result.warnings = warnings
                            guard result.bytes <= maxBytes else {
                                output.push(.over(result))
                                return
                            }
                            output.push(.fits(result))
                            guard try decision.pop() == true else { return }
                            try writer.commit()
                            output.push(.committed)
                            return
                        }
                    }
                } catch ClipKitError.limitExceeded(_, "output size", _, _) where !isLast {
                    output.push(.stopped)
                }
            }
        }
        let fingerprint = try fingerprint()
        for queue in fingerprints { queue.push(FingerprintBox(value: fingerprint)) }
        // The most lossy writer first: when it gives up, the others are not waited for (the
        // pipeline's stop ends them).
        guard let last = try reports[reports.count - 1].pop() else {
            throw ClipKitError.internalFailure(path: destination.path, reason: "a GIF writer ended without a report")
        }
        if case .hopeless(let bytes, let width, let height) = last {
            throw DoesNotFit(smallest: bytes, width: width, height: height, projected: true)
        }
        var outcomes: [LadderReport] = []
        for report in reports.dropLast() {
            guard let outcome = try report.pop() else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "a GIF writer ended without a report")
            }
            outcomes.append(outcome)
        }
        outcomes.append(last)
        let firstFit = outcomes.firstIndex { if case .fits = $0 { return true }; return false }
        let firstPruned = outcomes.firstIndex { if case .pruned = $0 { return true }; return false }
        if let firstPruned, firstPruned < (firstFit ?? outcomes.count) { throw PrunedTooEarly() }
        guard let chosen = firstFit,
              case .fits(let result) = outcomes[chosen] else {
            guard case .over(let smallest)? = outcomes.last else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "the most lossy GIF writer did not finish")
            }
            throw DoesNotFit(smallest: smallest.bytes, width: smallest.width, height: smallest.height)
        }
        if let floor = options.minQuality, let score = result.ssimulacra2, score < floor {
            throw BelowQualityFloor(result: result, floor: floor, limit: maxBytes)
        }
        let posterFile = try poster(fingerprint)
        for animation in heldAnimations { try animation.record(fingerprint) }
        for (i, decision) in decisions.enumerated() { decision.push(i == chosen) }
        guard case .committed? = try reports[chosen].pop() else {
            throw ClipKitError.internalFailure(path: destination.path, reason: "the chosen GIF was not moved into place")
        }
        try posterFile?.commit()
        for animation in heldAnimations { try animation.file.commit() }
        return result
    }
}
