// The GIF's writer in one pass: every quantised frame into one file; under `--max-bytes` it stops
// as soon as the pass's size is known to be too far from the limit.
import Foundation

/// What one `--max-bytes` pass learned of its size when it wrote no GIF that fits.
struct FitProbe: Sendable, Equatable {
    /// Bytes the whole GIF takes: exact when `complete`, else projected from the frames written.
    var bytes: Int
    var width: Int
    var height: Int
    /// Over the limit; false when projected so far under it that a higher level is worth a pass.
    var over: Bool
    var complete: Bool
    /// The frames the pass had, when it reached the end with another count than it projected
    /// with (the container's was wrong, or there was none): the count for the passes after it.
    var frames: Int? = nil
    /// The pass's own bytes passed the limit: over for certain, whatever the frame count.
    var pastLimit = false
    /// Frames the pass wrote before it stopped; when `complete`, the images in the GIF (identical
    /// frames merged).
    var written = 0
}

/// What the writer gives.
enum WriterOutcome {
    /// The GIF, complete (a temp file, not yet in place) and within the limit, for the caller
    /// to commit with the other outputs.
    case written(GIFResult, FinishedFile)
    /// Stopped (nothing kept): over the limit, or projected far from it.
    case missed(FitProbe)
}

/// Writes the quantised frames into one GIF on the caller's thread. Without `--max-bytes` its
/// budget is the input's (shared with its poster and WebP/MP4); with it, `--max-output`, and it
/// stops once past `maxBytes` (the GIF cannot fit), and the size projected after every frame once
/// `checkpoint` of the expected frames are written: more than `overShare` of the limit, it
/// stops; less than `underShare` at the checkpoint and `mayStopUnder`, it stops too, so that a
/// higher level can be tried (less than `LossyRateControl.reachShare` for a rate-controlled pass,
/// which can lower its later frames' lossy LZW to land within the band). Within that band, a pass whose lossy LZW `--quality` chose writes
/// its later frames lossier as the projection needs (`LossyRateControl`), to end under the limit.
/// Decided from the writer's own bytes at fixed frames, so never by timing.
struct GIFPassWriter: Sendable {
    let run: ConversionRun
    let options: GIFOptions
    let destination: URL
    let globalPalette: Palette?
    /// The frames expected: the producer's count, or one a pass before learned.
    let expectedCount: Int?
    /// Whether a projection far under the limit stops the pass (a higher level is still untried).
    var mayStopUnder = false
    /// Whether the pass may stop on a projection (off for an exact pass: it runs to its end, or
    /// until its own bytes pass the limit, the one stop that is never wrong).
    var mayStopEarly = true
    /// Whether a GIF that fits is written however far under the limit: the pass is at the
    /// highest value its search can take, with none found over, so a size far under can only
    /// be the answer. (Otherwise such a size goes back to the search when it proves the
    /// projections or the frame count wrong, for it to search again: here there is nothing to
    /// search, and a 5-frame VFR clip under the limit at level 100 was reported under twice,
    /// learning its count and then proving the projections wrong, until the search ended with
    /// no pass written.) Its later frames may be made lossier to fit, never less lossy than its
    /// level (`LossyRateControl`'s `lowers`): that level is the most the search may take.
    var keepsUnder = false
    /// Where the writer hands what the viewer sees back to the quantiser (lossy LZW).
    var shownFeedback: BoundedQueue<ShownReport>?
    /// The stage that measures the GIF (`options.measure`).
    var meter: GIFMeterStage?

    /// The share of the expected frames written when the size is projected.
    static let checkpoint = 0.3
    /// Projected above this share of the limit, the pass cannot fit (projections from the first
    /// 30% of a clip ran up to 8% low on the bench clips, whose second halves are busier; the
    /// nearer the end, the closer they come). See `FitSearch.aim` for how the three were chosen.
    static let overShare = 1.01
    /// Projected below this share, a higher level would fit: the pass stops when one is untried.
    /// At 0.88 a width projected at 88-90% ran on and landed there (the screen clip at 89.7% of
    /// half its default size); 0.90 keeps the bench fits at 92.3-99.7%, and since later passes
    /// replay the first one's pictures (`FrameCache`) the extra pass this sometimes costs is cheap.
    static let underShare = 0.90
    /// Frames the recent rate is taken over.
    static let recentFrames = 16
    /// Clips shorter than this many frames are never projected.
    static let fewestProjected = 10

    init(run: ConversionRun, options: GIFOptions, destination: URL, globalPalette: Palette?, expectedCount: Int?) {
        self.run = run
        self.options = options
        self.destination = destination
        self.globalPalette = globalPalette
        self.expectedCount = expectedCount
    }

    /// Writes `quantized` until its end (or until the pass is known not to fit).
    func write(_ quantized: BoundedQueue<QuantizedMessage>) throws -> WriterOutcome {
        let path = run.path
        // With `--max-bytes` the GIF has a budget of its own, `--max-output` (past it: an error);
        // past `--max-bytes` the pass cannot fit, which this loop decides, not the budget.
        let budget = options.maxBytes == nil ? run.job.budget : ByteBudget(limit: options.limits.maxOutputBytes, input: run.job.budget.input)
        var writer = GIFWriterStage(destination: destination, source: path, options: options, globalPalette: globalPalette, budget: budget)
        writer.shownFeedback = shownFeedback
        writer.meter = meter
        let checkpoint = expectedCount.flatMap { $0 >= Self.fewestProjected ? Int((Double($0) * Self.checkpoint).rounded(.up)) : nil }
        var done = 0
        var firstBytes = 0
        // The bytes after each of the last `recentFrames` frames: the rate lately.
        var recent = [Int](repeating: 0, count: Self.recentFrames)
        // Lossy LZW raised on the later frames of a pass a little over the limit.
        var control = LossyRateControl(options: options, lowers: !keepsUnder)
        while let message = try quantized.pop() {
            try options.limits.checkDeadline(path)
            switch message {
            case .frame(let frame):
                try writer.add(frame)
                done += 1
                run.progress?(done, expectedCount)
                guard let maxBytes = options.maxBytes else { continue }
                if done == 1 { firstBytes = writer.bytesSoFar }
                let bytes = writer.bytesSoFar
                // Past the limit: over for certain, whatever the count or the projections. (Its
                // size, for the next guess only: the rest at the mean rate while the count holds.)
                if bytes > maxBytes, !mayStopEarly || expectedCount.map({ done >= $0 }) ?? true {
                    let guess = expectedCount.map { Self.projection(bytes: bytes, first: firstBytes, done: done, expected: $0) } ?? bytes
                    return .missed(FitProbe(bytes: max(bytes, guess), width: writer.canvasSize.width, height: writer.canvasSize.height,
                                            over: true, complete: false, pastLimit: true, written: done))
                }
                // Only while the expected count holds is the rest projected and the pass stopped
                // early: a clip longer than its container says (or of unknown length) is written
                // to its end (or past the limit), so the next pass learns its exact size instead of a guess.
                guard mayStopEarly, let expectedCount, done < expectedCount else { continue }
                let projected = max(bytes, Self.projection(bytes: bytes, first: firstBytes, done: done, expected: expectedCount))
                // A pass stopped over reports the larger of that and the rest at the recent rate:
                // a clip busier later than at first is over by more than the mean says.
                let window = done > Self.recentFrames
                let lately = window ? recent[done % Self.recentFrames] : firstBytes, span = window ? Self.recentFrames : done - 1
                let overBy = span > 0 ? max(projected, bytes + (bytes - lately) * (expectedCount - done) / span) : projected
                recent[done % Self.recentFrames] = bytes
                if bytes > maxBytes {
                    var past = probe(writer, bytes: overBy, over: true, complete: false, written: done)
                    past.pastLimit = true
                    return .missed(past)
                }
                guard let checkpoint, done >= checkpoint else { continue }
                let over = Double(projected) > Self.overShare * Double(maxBytes)
                // (A pass whose later frames the control can make less lossy goes on from nearer.)
                let reach = control == nil ? Self.underShare : LossyRateControl.reachShare
                let under = done == checkpoint && mayStopUnder && Double(projected) < reach * Double(maxBytes)
                if over || under { return .missed(probe(writer, bytes: over ? overBy : projected, over: over, complete: false, written: done)) }
                // Within the band, the later frames are made lossier as the projection needs.
                if let next = control?.update(projected: projected, bytes: bytes, limit: maxBytes) { writer.lossy = next }
                // Projected within reach at the checkpoint: the GIF is likely kept, so measure it as it comes.
                if done == checkpoint { meter?.send(.keep) }
            case .end(let duration, let warnings):
                var result = try writer.finish(duration: duration, fingerprint: try run.job.fingerprint())
                result.warnings = warnings
                if let control, control.highest > control.base { result.raisedLossy = control.highest }
                if let control, control.lowest < control.base { result.loweredLossy = control.lowest }
                if let maxBytes = options.maxBytes {
                    // A count that proved wrong (or was missing) made every projection wrong: this
                    // pass's exact size, and the count, go to the search. So does a size far under
                    // the limit while a higher value is untried, or while projections are trusted
                    // (`mayStopEarly`; then it proves them wrong, whatever the checkpoint projected:
                    // 10 pictures over 701 s, projected in the band, were written at 65% of the
                    // limit). A count that proved wrong reports far under even when the search
                    // thought no higher value worth a pass: its overs were projected with that count.
                    let learned = expectedCount == done ? nil : done
                    let under = !keepsUnder && (mayStopUnder || mayStopEarly || learned != nil)
                        && Double(result.bytes) < Self.underShare * Double(maxBytes)
                    if result.bytes > maxBytes || under {
                        return .missed(FitProbe(bytes: result.bytes, width: result.width, height: result.height, over: !under,
                                                complete: true, frames: learned, pastLimit: !under, written: result.frameCount))
                    }
                }
                return .written(result, try writer.handOver())
            }
        }
        throw ClipKitError.internalFailure(path: destination.path, reason: "the frame stream ended without its end")
    }

    private func probe(_ writer: GIFWriterStage, bytes: Int, over: Bool, complete: Bool, written: Int) -> FitProbe {
        FitProbe(bytes: bytes, width: writer.canvasSize.width, height: writer.canvasSize.height, over: over, complete: complete,
                 written: written)
    }

    /// The whole GIF's size from `bytes` after `done` of `expected` frames: the first frame
    /// (with the header and colour table, `first` bytes) once, the rest at their mean.
    static func projection(bytes: Int, first: Int, done: Int, expected: Int) -> Int {
        guard done > 1, expected > done else { return bytes }
        let rest = Double(bytes - first) / Double(done - 1)
        return Int((Double(bytes) + rest * Double(expected - done)).rounded())
    }
}
