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
            let outcome = self.outcome, cancelled = self.cancelled
            thread = StageThread(name: "ck.hash") {
                let result = Result { try ContentHash.ofFile(input, deadline: deadline, cancelled: { cancelled.withLock { $0 } }) }
                outcome.withLock { $0 = result }
            }
        }
    }

    /// The fingerprint to record (waiting for the hash if it is still being read), or nil.
    func value() throws -> Fingerprint? {
        if let known { return known }
        guard let thread else { return nil }
        thread.join()
        guard let result = outcome.withLock({ $0 }) else { return nil }
        return Fingerprint(contentHash: try result.get(), options: options)
    }

    /// Abandons the hash and joins its thread.
    func stop() {
        cancelled.withLock { $0 = true }
        thread?.join()
    }
}
