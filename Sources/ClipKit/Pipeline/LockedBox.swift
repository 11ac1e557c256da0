// The one place ClipKit shares mutable state between threads: a value behind a lock and its condition.
import Foundation

/// A value that several threads read and change, always under one lock, as swift-nio's
/// `NIOLockedValueBox` and the standard library's `Mutex` do. Waiting for a change
/// (`wait(until:then:)`) uses the same lock's condition variable, so a bounded queue needs no
/// second primitive.
///
/// Audit, for the `@unchecked Sendable` below (the only one in ClipKit):
/// - `value` is read and written only inside `withLock` and `wait`, which hold the lock for the
///   whole closure; the closures cannot escape.
/// - Values cross in and out only as `sending` (a region no other thread can reach), as with
///   `Mutex`, so even a non-Sendable value (a demuxer handed to its decode thread) is owned by
///   one thread at a time.
final class LockedBox<Value>: @unchecked Sendable {
    private var value: Value
    private let condition = NSCondition()

    init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with the value under the lock, then wakes every waiter (the value may have changed).
    @discardableResult
    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Replaces the value with `new` (which no other thread can reach) under the lock.
    func store(_ new: sending Value) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        value = new
    }

    /// Waits until `ready` holds for the value, then runs `body` under the same lock.
    @discardableResult
    func wait<Result>(until ready: (borrowing Value) -> Bool,
                      then body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(value) { condition.wait() }
        return try body(&value)
    }
}
