// The CLI's shared state between batch threads: a value behind a pthread mutex (NSLock).
import Foundation

/// `Synchronization.Mutex`'s `withLock`, over an `NSLock` instead.
///
/// Why not `Mutex`: on Linux it is a priority-inheritance futex whose contended path
/// (FUTEX_LOCK_PI / FUTEX_UNLOCK_PI in the uninstrumented libswiftSynchronization) hands the
/// lock over inside the kernel, so ThreadSanitizer sees no release/acquire between the two
/// owners and reports every contended `withLock` body as a data race (`make sanitize` did, on
/// BatchState with --jobs 2; a four-thread counter under `Mutex` reproduces it while counting
/// exactly). `NSLock` is a pthread mutex, which TSan intercepts, so the CLI's locking stays
/// checkable. No suppression could do this: the reports' stacks hold only the CLI's own frames.
///
/// Audit, for the `@unchecked Sendable` below: `value` is read and written only inside
/// `withLock`, which holds the lock for the whole closure; the closure cannot escape, and
/// values go in and out as `sending`, as with `Mutex`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: sending Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
