// The envelope of one input's work, the same for every product: limits started, fingerprint hashed beside it.
import Foundation

/// What every product (`GIFConverter`, `Exploder`, `Thumbnailer`, `Storyboarder`) sets up around
/// the work on one input: the limits' clock started, the output byte budget, and the input's
/// fingerprint hashed on a thread of its own beside the decode. `run` joins that thread however
/// the work ends. The work commits its outputs with an `OutputCommit`.
struct OutputJob: Sendable {
    let input: URL
    /// The limits with their clock started.
    let limits: Limits
    /// What every output of this input together may write (`limits.maxOutputBytes`).
    let budget: ByteBudget
    /// The fingerprint the outputs record, once the hash is done.
    let stamp: FingerprintStage

    /// Checks `input` (with `checkInput`: a regular, readable, non-empty file), starts the
    /// limits' clock and the hash, and runs `work`; the hash thread is joined before returning.
    static func run<T>(_ input: URL, limits: Limits, fingerprint: FingerprintSource?, checkInput: Bool = true,
                       _ work: (OutputJob) throws -> T) throws -> T {
        if checkInput { try InputFile.check(input.path) }
        var started = limits.started()
        let stamp = FingerprintStage(fingerprint, input: input, deadline: started.deadline)
        defer { stamp.stop() }
        // Decoded on every core until damage shows; then again on one thread, which conceals
        // it the same way every run (frame threads did not: 4 of 84 damaged fuzz inputs gave
        // GIFs that differed from run to run). What the first attempt wrote is in temp files,
        // gone with it.
        func attempt(_ threads: DecoderThreads) throws -> T {
            started.decoderThreads = threads
            return try work(OutputJob(input: input, limits: started, budget: ByteBudget(limit: started.maxOutputBytes, input: input.path),
                                       stamp: stamp))
        }
        do {
            return try attempt(.perCoreUntilDamage)
        } catch is ThreadedDecodeDamage {
            return try attempt(.one)
        }
    }

    /// The fingerprint to record (waits for the hash), or nil.
    func fingerprint() throws -> Fingerprint? { try stamp.value() }
}
