// The one bounded serial queue every pipeline stage hands its values through.
import Foundation

/// A blocking FIFO with a fixed capacity between one producer thread and one consumer.
///
/// The producer blocks in `push` while the queue is full, so memory is bounded by the capacity,
/// never by the length of the clip. The producer ends the stream with `finish(throwing:)`;
/// the consumer may `cancel()` at any time, after which `push` returns false and the producer stops.
public final class BoundedQueue<Element>: @unchecked Sendable {
    public let capacity: Int
    private let condition = NSCondition()
    private var buffer: [Element?]
    private var head = 0
    private var count = 0
    private var finished = false
    private var cancelled = false
    private var failure: Error?

    public init(capacity: Int) {
        precondition(capacity > 0, "a bounded queue needs room for at least one element")
        self.capacity = capacity
        self.buffer = Array(repeating: nil, count: capacity)
    }

    /// Appends `element`, waiting while the queue is full. Returns false if the consumer cancelled.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        buffer[(head + count) % capacity] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// Ends the stream: the consumer drains what is queued, then gets nil (or `error`).
    public func finish(throwing error: Error? = nil) {
        condition.lock()
        if !finished {
            finished = true
            failure = error
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Takes the next element, waiting while the queue is empty. Nil once the producer finished
    /// and the queue is drained; rethrows the producer's error at that point.
    public func pop() throws -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !finished && !cancelled { condition.wait() }
        if count == 0 {
            if let failure, !cancelled { throw failure }
            return nil
        }
        let element = buffer[head]
        buffer[head] = nil
        head = (head + 1) % capacity
        count -= 1
        condition.broadcast()
        return element
    }

    /// Stops the producer: later pushes return false and queued elements are dropped.
    public func cancel() {
        condition.lock()
        cancelled = true
        for i in 0..<capacity { buffer[i] = nil }
        count = 0
        condition.broadcast()
        condition.unlock()
    }

    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }
}

/// Runs pipeline stages on their own threads, each feeding a `BoundedQueue`.
public enum Stage {
    /// Starts `body` on a new named thread; `body` produces into the returned queue, which is
    /// finished (with `body`'s error, if any) when `body` returns.
    public static func start<Output>(
        name: String, capacity: Int, _ body: @escaping (BoundedQueue<Output>) throws -> Void
    ) -> BoundedQueue<Output> {
        let queue = BoundedQueue<Output>(capacity: capacity)
        let thread = Thread {
            do {
                try body(queue)
                queue.finish()
            } catch {
                queue.finish(throwing: error)
            }
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
        return queue
    }

    /// A stage that maps each element of `input` through `transform` (nil drops it).
    /// Cancelling the output cancels the input, so a stopped consumer stops the whole chain.
    public static func map<Input, Output>(
        _ input: BoundedQueue<Input>, name: String, capacity: Int,
        _ transform: @escaping (Input) throws -> Output?
    ) -> BoundedQueue<Output> {
        start(name: name, capacity: capacity) { output in
            defer { input.cancel() }
            while let element = try input.pop() {
                guard let mapped = try transform(element) else { continue }
                if !output.push(mapped) { return }
            }
        }
    }
}
