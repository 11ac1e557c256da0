// The GIF's measure stage: what a viewer sees, scored against the source on a thread of its own.

/// What the GIF writer tells the measure stage, in the order it happens.
enum MeterMessage: Sendable {
    /// The GIF's canvas size: the first message.
    case begin(width: Int, height: Int)
    /// An image as written: `shown` are its indices after lossy LZW, `table` its colours.
    case draw(left: Int, top: Int, width: Int, height: Int, disposal: GIFDisposal, transparentIndex: Int?,
              table: [UInt8], shown: [UInt8])
    /// One output tick: the source frame it stands for (luma; the colours when measured), at
    /// `time` output seconds.
    case tick(luma: LumaPlane, source: RGBAImage?, time: Double)
    /// The GIF is likely to be kept: score the ticks waiting, and each from now on as it comes.
    case keep
}

/// The figures of a measured GIF (`GIFQualityMeter`); nil where nothing was scored.
struct MeterFigures: Sendable {
    var ssim: Double?
    var ssimulacra2: Double?
    var ssimulacra2P5: Double?
}

/// Runs a `GIFQualityMeter` on a stage of the pass's pipeline, so that measuring overlaps the
/// quantiser and the writer instead of following the writer's every image on its thread. On
/// the writer's thread the meter's SSIMULACRA2 scores (about 25 ms each at 480x270) ran one
/// after another once the last frame was written: a `--quality 80` encode of the bench's 3 s
/// 720p cut took 0.78 s measured, 0.55 s not.
///
/// Unless `deferred`, the meter scores each tick picked as soon as the next one is picked (only
/// the last waits, in case the tick after it repeats it), not at the end: the stage has a core
/// of its own. A `--max-bytes` pass, which may stop early and throw its GIF away, defers the
/// scores until the writer sends `keep` (past its checkpoint), as the meter did on the writer's
/// thread. The figures are the same, scored in the same order. A pass stopped early is stopped
/// with its pipeline, the stage with it.
struct GIFMeterStage {
    /// Where the writer sends what happens (a pipeline queue: cancelled when the pass stops).
    let input: BoundedQueue<MeterMessage>
    /// The figures, once `input` is finished.
    let figures: BoundedQueue<MeterFigures>

    /// Starts the stage on `pipeline`: `capacity` messages may wait (each holds a picture).
    /// The deadline is checked before each message; a stage past it fails, and so the pass.
    init(_ pipeline: Pipeline, label: String, capacity: Int, deferred: Bool, limits: Limits, path: String) {
        let input: BoundedQueue<MeterMessage> = pipeline.queue(capacity: capacity)
        self.input = input
        figures = pipeline.stage("\(label).measure", from: input, capacity: 1) {
            (input: BoundedQueue<MeterMessage>, output: BoundedQueue<MeterFigures>) in
            var meter: GIFQualityMeter?
            while let message = try input.pop() {
                try limits.checkDeadline(path)
                switch message {
                case .begin(let width, let height):
                    meter = GIFQualityMeter(width: width, height: height)
                    if !deferred { meter?.scoreAsTicksCome() }
                case .draw(let left, let top, let width, let height, let disposal, let transparentIndex, let table, let shown):
                    meter?.draw(left: left, top: top, width: width, height: height, disposal: disposal,
                                transparentIndex: transparentIndex, table: table, shown: shown)
                case .tick(let luma, let source, let time):
                    meter?.compare(with: luma, source: source, time: time)
                case .keep:
                    meter?.scoreAsTicksCome()
                }
            }
            // Cancelled (the pass stopped, its GIF thrown away): the ticks waiting are not scored.
            if input.isCancelled { return }
            meter?.finish()
            output.push(MeterFigures(ssim: meter?.ssim, ssimulacra2: meter?.ssimulacra2, ssimulacra2P5: meter?.ssimulacra2P5))
        }
    }

    /// Sends `message` (dropped when the stage has stopped: `finish()` then reports why).
    func send(_ message: MeterMessage) {
        _ = input.push(message)
    }

    /// Ends the messages and waits for the figures; rethrows the stage's error.
    func finish(path: String) throws -> MeterFigures {
        input.finish()
        guard let figures = try figures.pop() else {
            throw ClipKitError.internalFailure(path: path, reason: "the measure stage ended without its figures")
        }
        return figures
    }
}
