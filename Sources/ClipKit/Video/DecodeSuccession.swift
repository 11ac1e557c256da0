// A recording decode handed from one consumer to the next: the `--max-bytes` passes after the
// first take its frames while it is still decoding, instead of waiting for it to end.

/// The hand-over between a decode that records its pictures (`FrameOutput.recording`, for
/// `FrameCache`) and the passes that follow the one it started for. A `--max-bytes` pass that
/// stops early (at its checkpoint, 30% of the frames) leaves the decode running to the end for
/// the recording; the next pass used to wait for that end before replaying the recording, so
/// the decode's last 70% and the next pass ran one after the other. Now the next pass attaches
/// a queue of its own (`attach`): at its next picture the decoder scales the pictures recorded
/// so far to the new pass's size and queues them, then queues each picture it decodes, as it
/// did for the first pass, until that pass stops too (and the next one attaches) or the stream
/// ends. The frames are the ones a replay of the complete recording gives, byte for byte: the
/// same pictures, scaled by the same code, at the same places.
///
/// The decoder's side runs on its thread (`take`, `end`); `attach` on the pass's, and waits
/// until the decoder has taken the queue (it then feeds it to the end, or until it is
/// cancelled) or has ended without it (the recording, when complete, is then in `FrameCache`).
final class DecodeSuccession: Sendable {
    /// The queue a later pass reads its frames from, and the size it wants them at.
    struct Successor: Sendable {
        let queue: BoundedQueue<StreamMessage<VideoFrame>>
        let size: FrameSize
    }

    private struct State: Sendable {
        /// A pass waiting for the decoder to take its queue.
        var waiting: Successor?
        /// Queues the decoder has taken.
        var taken = 0
        /// The decode is over: nothing is taken any more.
        var ended = false
        /// No pass follows (the fit is over): the decoder stops once no consumer is left.
        var abandoned = false
    }

    private let state = LockedBox(State())

    init() {}

    /// A pass's side: asks the decoder to feed `successor`, and waits until it has taken it
    /// (true) or ended without it (false).
    func attach(_ successor: Successor) -> Bool {
        let target: Int? = state.withLock { state in
            guard !state.ended, !state.abandoned, state.waiting == nil else { return nil }
            state.waiting = successor
            return state.taken + 1
        }
        guard let target else { return false }
        return state.wait(until: { $0.taken >= target || $0.ended }) { $0.taken >= target }
    }

    /// The decoder's side, once its consumer has stopped: the pass waiting for its frames, now taken.
    func take() -> Successor? {
        state.withLock { state -> Successor? in
            guard let next = state.waiting else { return nil }
            state.waiting = nil
            state.taken += 1
            return next
        }
    }

    /// The decoder's side: the decode is over (a pass still waiting is told so).
    func end() {
        state.withLock { state in
            state.ended = true
            state.waiting = nil
        }
    }

    /// No pass follows: a decode going on for its recording alone stops.
    func abandon() {
        state.withLock { $0.abandoned = true }
    }

    var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// The decode has not ended: a pass may still take its frames over.
    var isDecoding: Bool { state.withLock { !$0.ended } }

    /// A pass is waiting for the decoder to take its queue (for tests that must attach first).
    var isWaiting: Bool { state.withLock { $0.waiting != nil } }
}

