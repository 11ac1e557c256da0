// The one bounded serial queue every pipeline stage hands its values through.

/// A FIFO with a fixed capacity between one producer and one consumer.
///
/// The producer blocks in `push` while the queue is full, so memory is bounded by the capacity,
/// never by the length of the clip. The producer ends the stream with `finish(throwing:)`; the
/// consumer may `cancel()` at any time, after which `push` returns false and the producer stops.
/// The consumer pulls with `pop()` on a thread, or with `next()` from async code, where waiting
/// suspends the task instead of blocking a thread of the cooperative pool.
final class BoundedQueue<Element: Sendable>: Sendable {
    let capacity: Int
    private let state: LockedBox<State>

    private struct State: Sendable {
        // A waiting continuation is taken out under the lock and resumed exactly once, outside it.
        var buffer: [Element?]
        var head = 0
        var count = 0
        var finished = false
        var cancelled = false
        var failure: Error?
        /// An async consumer waiting for the next element.
        var waiter: CheckedContinuation<Element?, Error>?

        /// What the consumer gets now: an element, the end (nil), the producer's error, or
        /// nothing yet (`.none`).
        mutating func take() -> Result<Element?, Error>? {
            if count > 0 {
                let element = buffer[head]
                buffer[head] = nil
                head = (head + 1) % buffer.count
                count -= 1
                return .success(element)
            }
            if cancelled { return .success(nil) }
            if finished { return failure.map { .failure($0) } ?? .success(nil) }
            return nil
        }

        mutating func resumeWaiter() -> (CheckedContinuation<Element?, Error>, Result<Element?, Error>)? {
            guard let waiter, let result = take() else { return nil }
            self.waiter = nil
            return (waiter, result)
        }
    }

    init(capacity: Int) {
        precondition(capacity > 0, "a bounded queue needs room for at least one element")
        self.capacity = capacity
        state = LockedBox(State(buffer: Array(repeating: nil, count: capacity)))
    }

    /// Appends `element`, waiting while the queue is full. False if the consumer cancelled.
    @discardableResult
    func push(_ element: Element) -> Bool {
        let capacity = self.capacity
        let (accepted, resume) = state.wait(until: { $0.count < capacity || $0.cancelled }) { state in
            if state.cancelled { return (false, state.resumeWaiter()) }
            state.buffer[(state.head + state.count) % capacity] = element
            state.count += 1
            return (true, state.resumeWaiter())
        }
        if let (waiter, result) = resume { waiter.resume(with: result) }
        return accepted
    }

    /// Ends the stream: the consumer drains what is queued, then gets nil (or `error`).
    func finish(throwing error: Error? = nil) {
        let resume = state.withLock { state in
            if !state.finished {
                state.finished = true
                state.failure = error
            }
            return state.resumeWaiter()
        }
        if let (waiter, result) = resume { waiter.resume(with: result) }
    }

    /// Takes the next element, blocking while the queue is empty. Nil once the producer finished
    /// and the queue is drained, or after `cancel()`; rethrows the producer's error at the end.
    func pop() throws -> Element? {
        try state.wait(until: { $0.count > 0 || $0.finished || $0.cancelled }) { $0.take()! }.get()
    }

    /// `pop()` for async code: suspends instead of blocking, and cancelling the task cancels the queue.
    func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, Error>) in
                let ready = state.withLock { state -> Result<Element?, Error>? in
                    if let result = state.take() { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the producer: later pushes return false, queued elements are dropped and the
    /// consumer gets nil.
    func cancel() {
        let resume = state.withLock { state in
            state.cancelled = true
            for i in state.buffer.indices { state.buffer[i] = nil }
            state.count = 0
            return state.resumeWaiter()
        }
        if let (waiter, result) = resume { waiter.resume(with: result) }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }
}
