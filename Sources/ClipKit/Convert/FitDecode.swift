// `--max-bytes`: the decode of the first pass on a thread the fit owns, so that the passes after
// it take its frames while it is still decoding.
import Foundation

/// The recording decode of a `--max-bytes` fit (`FrameCache`), started by its first pass on the
/// fit's own pipeline instead of the pass's: when that pass stops early (its checkpoint, 30% of
/// the frames) the decode goes on for the recording, and the next pass takes its frames over
/// (`DecodeSuccession`) at once instead of waiting for the decode to end. The two overlap: on
/// the bench's 720p cut at 75% of its default's size the first pass (level 90) reached its
/// checkpoint at 0.24 s and returned at 0.32 s, when its decode ended; the second (level 95,
/// written) now starts at 0.24 s. With the lossy encoder made faster too, the twelve fits of
/// bench/rd_sweep20.py took 1.32-2.01x a default encode (1.31-2.63x before).
///
/// `convertFitting` makes it and calls `stop()` before it returns: no pass follows, the decode
/// stops (it only went on for the passes after), and its thread is joined.
final class FitDecode: Sendable {
    /// What a later pass needs to take the decode over: the source, which frames it reads
    /// (all but the size), the count the producer expects, and whether frames keep transparency.
    struct Started: Sendable {
        let info: VideoInfo
        let key: FrameCache.Key
        let expectedCount: Int?
        let transparentFrames: Bool
    }

    /// Holds the decode's stage, joined by `stop()`.
    let pipeline = Pipeline()
    let succession = DecodeSuccession()
    private let started = LockedBox<Started?>(nil)

    init() {}

    /// Records that a pass started the decode on `pipeline`.
    func start(_ decode: Started) {
        started.store(decode)
    }

    /// The decode a pass started (ended or not).
    var current: Started? { started.withLock { $0 } }

    /// The decode while it goes on (a pass may take its frames over); nil once it has ended.
    var live: Started? { succession.isDecoding ? current : nil }

    /// A queue of `capacity` frames (made by the pass's `pipeline`, cancelled when the pass
    /// ends) that the decode feeds from the first frame on at `read`'s size; nil when it has
    /// ended (its recording, when complete, is in `FrameCache`) or reads other frames.
    func attach(_ read: FrameReadOptions, capacity: Int, pipeline: Pipeline) -> BoundedQueue<DecodedMessage>? {
        guard let started = current, started.key == FrameCache.Key(read) else { return nil }
        let queue: BoundedQueue<DecodedMessage> = pipeline.queue(capacity: capacity)
        return succession.attach(.init(queue: queue, size: read.size)) ? queue : nil
    }

    /// No pass follows: the decode stops, and its thread is joined.
    func stop() {
        succession.abandon()
        pipeline.stop()
    }
}
