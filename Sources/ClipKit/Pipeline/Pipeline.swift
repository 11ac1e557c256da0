// The stage graph of one run: named stages on joined threads, bounded queues between them.

/// What travels on every hop: frames, then one `end` message with the length of the output
/// timeline. A queue that finishes without `end` was cancelled or failed.
enum StreamMessage<Frame: Sendable>: Sendable {
    case frame(Frame)
    /// Seconds from the first frame's time to the end of the last one, and the damage the
    /// source decoded around (a GIF's missing trailer, cut images), for the report.
    case end(duration: Double, warnings: [String] = [])
}

/// Owns the stages of one run.
///
/// Each stage is a named thread producing into a `BoundedQueue`; an error in a stage finishes
/// its queue with that error (the consumer sees it after the frames before it) and cancels its
/// input, so the stages upstream stop too. `stop()` cancels every queue and joins every thread;
/// the function that makes a pipeline calls it in a `defer`, so no stage outlives that call:
///
///     let pipeline = Pipeline()
///     defer { pipeline.stop() }
///     let frames = pipeline.stage("ck.decode", capacity: 3) { out in ... }
///     let quantized = pipeline.stage("ck.quantise", from: frames, capacity: 2) { input, out in ... }
///     while let message = try quantized.pop() { ... }   // the last stage runs on the caller's thread
final class Pipeline: Sendable {
    private let parts = LockedBox<(threads: [StageThread], cancels: [@Sendable () -> Void])>(([], []))

    init() {}

    deinit { stop() }

    /// Starts a stage with no input: `body` pushes into the returned queue, which is finished
    /// when `body` returns (with its error, if it throws).
    func stage<Output>(_ name: String, capacity: Int,
                       _ body: sending @escaping (BoundedQueue<Output>) throws -> Void) -> BoundedQueue<Output> {
        let output = BoundedQueue<Output>(capacity: capacity)
        let thread = StageThread(name: name) {
            do {
                try body(output)
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        parts.withLock { parts in
            parts.threads.append(thread)
            parts.cancels.append { output.cancel() }
        }
        return output
    }

    /// Starts a stage that reads `input` and pushes into the returned queue. When the stage
    /// ends for any reason its input is cancelled, so nothing upstream keeps working for it.
    func stage<Input, Output>(_ name: String, from input: BoundedQueue<Input>, capacity: Int,
                              _ body: sending @escaping (BoundedQueue<Input>, BoundedQueue<Output>) throws -> Void) -> BoundedQueue<Output> {
        stage(name, capacity: capacity) { output in
            defer { input.cancel() }
            try body(input, output)
        }
    }

    /// One stream to several consumers: every message of `input` is pushed to each output that
    /// has not cancelled, so one decode feeds several sinks. Ends when every output cancelled.
    func tee<Frame>(_ name: String, from input: BoundedQueue<StreamMessage<Frame>>, count: Int,
                    capacity: Int) -> [BoundedQueue<StreamMessage<Frame>>] {
        if count == 1 { return [input] }
        let outputs = (0..<count).map { _ in BoundedQueue<StreamMessage<Frame>>(capacity: capacity) }
        let thread = StageThread(name: name) {
            defer { input.cancel() }
            var open = Array(repeating: true, count: outputs.count)
            do {
                while let message = try input.pop() {
                    for (i, output) in outputs.enumerated() where open[i] {
                        open[i] = output.push(message)
                    }
                    if !open.contains(true) { return }
                }
                for output in outputs { output.finish() }
            } catch {
                for output in outputs { output.finish(throwing: error) }
            }
        }
        parts.withLock { parts in
            parts.threads.append(thread)
            parts.cancels += outputs.map { output in { output.cancel() } }
        }
        return outputs
    }

    /// A queue the caller feeds a stage through; cancelled by `stop()` like the stages' own, so a
    /// stage waiting on it cannot outlive the pipeline.
    func queue<Element>(capacity: Int) -> BoundedQueue<Element> {
        let queue = BoundedQueue<Element>(capacity: capacity)
        parts.withLock { $0.cancels.append { queue.cancel() } }
        return queue
    }

    /// Cancels every queue (waking stages blocked on them) and joins every thread.
    func stop() {
        let (threads, cancels) = parts.withLock { parts in
            defer { parts = ([], []) }
            return parts
        }
        for cancel in cancels { cancel() }
        for thread in threads { thread.join() }
    }
}
