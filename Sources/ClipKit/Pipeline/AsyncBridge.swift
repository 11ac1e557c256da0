// async entry points for the library: the blocking work runs on one joined thread per call, never
// on Swift's cooperative pool (whose few threads must not wait on decoders).
import Foundation

/// Runs `body` on a new thread, suspends until it is done, and joins the thread before returning.
func runOnThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result = LockedBox<StageThread?>(nil)
    let value: T = try await withCheckedThrowingContinuation { continuation in
        let thread = StageThread(name: name) {
            continuation.resume(with: Result { try body() })
        }
        result.withLock { $0 = thread }
    }
    // The body has returned; the thread ends right after it.
    result.withLock { $0.take() }?.join()
    return value
}
