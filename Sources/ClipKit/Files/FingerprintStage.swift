// The fingerprint an output records: known already, or hashed from the input while it converts.
import Foundation

/// Produces the `Fingerprint` an output records. With `.hashingInput` the input's bytes are
/// hashed on a stage thread of its own (`ck.hash`) while the conversion decodes, so the hash adds
/// little wall time; the output asks for `value()` when its pixels are done. The owner calls
/// `stop()` (in a `defer`): the read is abandoned and the thread joined before the call that
/// started it returns.
final class FingerprintStage: Sendable {
    private let known: Fingerprint?
    private let options: String
    private let thread: StageThread?
    private let outcome = LockedBox<Result<String, any Error>?>(nil)
    private let cancelled = LockedBox(false)
    /// The hash thread while it runs at idle priority, and whether someone waits for it (then it
    /// runs at normal priority, or never lowers itself if it had not started yet).
    private let priority = LockedBox<(idle: pthread_t?, awaited: Bool)>((nil, false))

    /// Starts hashing `input` when `source` asks for it; `nil` records nothing.
    init(_ source: FingerprintSource?, input: URL, deadline: Deadline) {
        switch source {
        case nil:
            known = nil
            options = ""
            thread = nil
        case .known(let fingerprint):
            known = fingerprint
            options = ""
            thread = nil
        case .hashingInput(let options):
            known = nil
            self.options = options
            let outcome = self.outcome, cancelled = self.cancelled, priority = self.priority
            thread = StageThread(name: "ck.hash") {
                // The hash is needed only when the output is done, so it runs on idle cores
                // (SCHED_IDLE) and leaves the decoder the cache and the cores: a thumbnail of a
                // 100 MB clip took 8 ms (9%) longer at normal priority, 4-5 ms at idle priority.
                // `value()` and `stop()` raise it back before they wait, so it cannot starve.
                priority.withLock { state in
                    guard !state.awaited else { return }
                    state.idle = pthread_self()
                    var parameters = sched_param()
                    _ = pthread_setschedparam(pthread_self(), Self.idlePolicy, &parameters)
                }
                let result = Result { try ContentHash.ofFile(input, deadline: deadline, cancelled: { cancelled.withLock { $0 } }) }
                outcome.withLock { $0 = result }
            }
        }
    }

    /// The fingerprint to record (waiting for the hash if it is still being read), or nil.
    func value() throws -> Fingerprint? {
        if let known { return known }
        guard let thread else { return nil }
        raisePriority()
        thread.join()
        guard let result = outcome.withLock({ $0 }) else { return nil }
        return Fingerprint(contentHash: try result.get(), options: options)
    }

    /// Abandons the hash and joins its thread.
    func stop() {
        cancelled.withLock { $0 = true }
        raisePriority()
        thread?.join()
    }

    /// SCHED_IDLE (Glibc hides it behind _GNU_SOURCE).
    private static let idlePolicy: Int32 = 5

    /// Back to normal priority: someone now waits for the hash. Under the lock, so the thread is
    /// not yet joined (its handle is valid) and does not lower itself afterwards.
    private func raisePriority() {
        priority.withLock { state in
            state.awaited = true
            guard let running = state.idle else { return }
            var parameters = sched_param()
            _ = pthread_setschedparam(running, Int32(SCHED_OTHER), &parameters)
            state.idle = nil
        }
    }
}
