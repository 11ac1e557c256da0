// The GIF's writers: one per lossy level, fed the same quantised frames; the least lossy one that fits is chosen.
import Foundation

/// What a pass that did not fit tells the next: the size of its most lossy GIF and its picture.
struct FitMiss: Sendable {
    var smallest: Int
    var width: Int
    var height: Int
    /// `smallest` is a projection from part of the clip (the pass gave up early).
    var projected = false
}

/// What one level's writer tells the caller.
enum LadderReport: Sendable {
    /// Its GIF is complete (a temp file, not yet in place) and within the limit.
    case fits(GIFResult, FinishedFile)
    /// Its GIF is complete but over the limit (the last level writes on to learn the smallest size).
    case over(GIFResult)
    /// It passed the limit and stopped.
    case stopped
    /// It stopped early: a less lossy writer was on course to fit (see `overtaken`).
    case pruned
    /// The most lossy writer gave up part-way: projected at `bytes`, well over the limit, so no
    /// level of this pass can fit (see `hopeless`).
    case hopeless(bytes: Int, width: Int, height: Int)
}

/// What the ladder as a whole gives.
enum LadderOutcome {
    /// The least lossy GIF that fits, complete, for the caller to commit with the other outputs.
    case chosen(GIFResult, FinishedFile)
    /// Writers stopped early were needed after all (a projection was low): run the pass again
    /// without stopping any, so the choice never depends on the writers' timing.
    case prunedTooEarly
    /// No level fits the byte limit.
    case doesNotFit(FitMiss)
}

/// Writes the quantised frames at every level of `levels(from: options.lossy)`: one level without
/// `--max-bytes` (written on the caller's thread, within the input's byte budget), else each level
/// on its own stage thread with a temp file and a budget of `maxBytes` (the last writes on past
/// it, to learn the smallest size). Every level runs the same loop (`writeLevel`).
struct GIFWriterLadder: Sendable {
    let run: ConversionRun
    let options: GIFOptions
    let destination: URL
    let globalPalette: Palette?
    /// Whether writers may stop early (off for the rerun after a wrong projection).
    let prune: Bool
    let expectedCount: Int?
    /// Where the one writer (no `--max-bytes`) hands what the viewer sees back to the quantiser.
    var shownFeedback: BoundedQueue<[UInt8]>?

    /// Lossy levels written side by side for `--max-bytes`. On the bench clips neighbouring levels
    /// differ in size by under 8%, so the least lossy one that fits lies within 90-100% of the limit
    /// whenever the limit is between the level-0 and level-250 sizes.
    static let lossyLadder = [0, 5, 10, 16, 24, 34, 48, 66, 90, 125, 175, 250]

    /// The levels one `--max-bytes` pass writes: `start` (the `--lossy` asked for) and every ladder level above it.
    static func levels(from start: Int) -> [Int] {
        [start] + lossyLadder.filter { $0 > start }
    }

    /// One level's place in the ladder.
    private struct Level {
        var index: Int
        var lossy: Int
        var count: Int
        var isLast: Bool { index == count - 1 }
    }

    /// Writes `quantized` at every level and chooses.
    func write(_ quantized: BoundedQueue<QuantizedMessage>, pipeline: Pipeline) throws -> LadderOutcome {
        guard let maxBytes = options.maxBytes else {
            // One level: the input's budget (shared with its poster and WebP/MP4), no limit of its own.
            let level = Level(index: 0, lossy: options.lossy, count: 1)
            let report = try writeLevel(quantized, level: level, budget: run.job.budget, maxBytes: nil, projections: nil) {
                try run.job.fingerprint()
            }
            guard case .fits(let result, let file) = report else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "the GIF writer did not finish")
            }
            return .chosen(result, file)
        }
        let lossyLevels = Self.levels(from: options.lossy)
        let branches = pipeline.tee("\(run.stageLabel).ladder", from: quantized, count: lossyLevels.count, capacity: 2)
        let fingerprints: [BoundedQueue<FingerprintBox>] = lossyLevels.map { _ in pipeline.queue(capacity: 1) }
        // Each writer's projected size (bytes so far scaled to the expected frame count), so that
        // writers far more lossy than one already on course to fit can stop early.
        let projections = LockedBox([Int](repeating: 0, count: lossyLevels.count))
        let reports = lossyLevels.indices.map { i in
            let level = Level(index: i, lossy: lossyLevels[i], count: lossyLevels.count)
            let limit = level.isLast ? options.limits.maxOutputBytes : min(maxBytes, options.limits.maxOutputBytes)
            let fingerprint = fingerprints[i]
            return pipeline.stage("\(run.stageLabel).lzw\(level.lossy)", from: branches[i], capacity: 1) {
                (input: BoundedQueue<QuantizedMessage>, output: BoundedQueue<LadderReport>) in
                let report = try self.writeLevel(input, level: level, budget: ByteBudget(limit: limit), maxBytes: maxBytes,
                                                 projections: projections) { try fingerprint.pop()?.value }
                output.push(report)
            }
        }
        let value = FingerprintBox(value: try run.job.fingerprint())
        for queue in fingerprints { queue.push(value) }
        return try choose(reports)
    }

    /// The one writer loop: frames until the end, then the GIF finished with the fingerprint
    /// `fingerprint` gives (nil when the writer has been stopped). Returns what became of it.
    private func writeLevel(_ input: BoundedQueue<QuantizedMessage>, level: Level, budget: ByteBudget, maxBytes: Int?,
                            projections: LockedBox<[Int]>?, fingerprint: () throws -> Fingerprint??) throws -> LadderReport {
        var levelOptions = options
        levelOptions.lossy = level.lossy
        let path = run.path
        var writer = GIFWriterStage(destination: destination, source: path, options: levelOptions, globalPalette: globalPalette, budget: budget)
        if level.count == 1 { writer.shownFeedback = shownFeedback }
        var done = 0
        do {
            while let message = try input.pop() {
                try options.limits.checkDeadline(path)
                switch message {
                case .frame(let frame):
                    try writer.add(frame)
                    done += 1
                    if level.index == 0 { run.progress?(done, expectedCount) }
                    guard let maxBytes, let projections else { continue }
                    if level.isLast, let projected = Self.hopeless(bytes: writer.bytesWritten, done: done, expected: expectedCount, limit: maxBytes) {
                        return .hopeless(bytes: projected, width: writer.canvasSize.width, height: writer.canvasSize.height)
                    }
                    if prune, Self.overtaken(writer: level.index, of: level.count, bytes: writer.bytesWritten, done: done,
                                             expected: expectedCount, limit: maxBytes, projections: projections) {
                        return .pruned
                    }
                case .end(let duration, let warnings):
                    guard let value = try fingerprint() else { return .stopped }
                    var result = try writer.finish(duration: duration, fingerprint: value)
                    result.warnings = warnings
                    if let maxBytes, result.bytes > maxBytes { return .over(result) }
                    return .fits(result, try writer.handOver())
                }
            }
        } catch ClipKitError.limitExceeded(_, "output size", _, _) where !level.isLast {
            return .stopped
        }
        throw ClipKitError.internalFailure(path: destination.path, reason: "the frame stream ended without its end")
    }

    /// The least lossy level that fits, from every writer's report.
    private func choose(_ reports: [BoundedQueue<LadderReport>]) throws -> LadderOutcome {
        func report(_ queue: BoundedQueue<LadderReport>) throws -> LadderReport {
            guard let report = try queue.pop() else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "a GIF writer ended without a report")
            }
            return report
        }
        // The most lossy writer first: when it gives up, the others are not waited for (the
        // pipeline's stop ends them).
        let last = try report(reports[reports.count - 1])
        if case .hopeless(let bytes, let width, let height) = last {
            return .doesNotFit(FitMiss(smallest: bytes, width: width, height: height, projected: true))
        }
        let outcomes = try reports.dropLast().map(report) + [last]
        let firstFit = outcomes.firstIndex { if case .fits = $0 { return true }; return false }
        let firstPruned = outcomes.firstIndex { if case .pruned = $0 { return true }; return false }
        if let firstPruned, firstPruned < (firstFit ?? outcomes.count) { return .prunedTooEarly }
        if let firstFit, case .fits(let result, let file) = outcomes[firstFit] { return .chosen(result, file) }
        guard case .over(let smallest) = last else {
            throw ClipKitError.internalFailure(path: destination.path, reason: "the most lossy GIF writer did not finish")
        }
        return .doesNotFit(FitMiss(smallest: smallest.bytes, width: smallest.width, height: smallest.height))
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
}

/// The fingerprint handed to every writer (a queue element must be one value).
struct FingerprintBox: Sendable {
    var value: Fingerprint?
}
