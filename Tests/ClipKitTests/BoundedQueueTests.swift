// The bounded queue blocks producers at capacity, carries errors and cancellation, and serves async consumers.
import Foundation
import Testing
@testable import ClipKit

@Suite struct BoundedQueueTests {
    struct Boom: Error {}

    @Test func producerWaitsAtCapacity() throws {
        let queue = BoundedQueue<Int>(capacity: 2)
        let pushed = LockedBox(0)
        let thread = StageThread(name: "test.producer") {
            for i in 0..<10 {
                queue.push(i)
                pushed.withLock { $0 += 1 }
            }
            queue.finish()
        }
        Thread.sleep(forTimeInterval: 0.2)
        let early = pushed.withLock { $0 }
        #expect(early <= 2, "the producer ran ahead of the capacity: \(early)")
        var got: [Int] = []
        while let value = try queue.pop() { got.append(value) }
        thread.join()
        #expect(got == Array(0..<10))
    }

    @Test func errorsArriveAfterTheQueuedValues() throws {
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        let queue = pipeline.stage("test", capacity: 4) { (out: BoundedQueue<Int>) in
            out.push(1)
            throw Boom()
        }
        #expect(try queue.pop() == 1)
        #expect(throws: Boom.self) { try queue.pop() }
    }

    @Test func cancelStopsTheProducerChain() throws {
        let pipeline = Pipeline()
        let source = pipeline.stage("endless", capacity: 1) { (out: BoundedQueue<Int>) in
            var i = 0
            while out.push(i) { i += 1 }
        }
        let mapped = pipeline.stage("double", from: source, capacity: 1) { (input: BoundedQueue<Int>, output: BoundedQueue<Int>) in
            while let value = try input.pop() {
                if !output.push(value * 2) { return }
            }
        }
        #expect(try mapped.pop() == 0)
        mapped.cancel()
        // The cancel travels upstream: the endless producer stops, and stop() joins both threads.
        pipeline.stop()
        #expect(source.isCancelled)
    }

    @Test func asyncConsumerGetsEveryValueThenTheError() async throws {
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        let queue = pipeline.stage("async.source", capacity: 1) { (out: BoundedQueue<Int>) in
            for i in 0..<50 { out.push(i) }
            throw Boom()
        }
        var got: [Int] = []
        do {
            while let value = try await queue.next() { got.append(value) }
            Issue.record("the producer's error was lost")
        } catch is Boom {}
        #expect(got == Array(0..<50))
    }

    @Test func teeFeedsEveryOpenConsumer() throws {
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        let source = pipeline.stage("tee.source", capacity: 1) { (out: BoundedQueue<StreamMessage<Int>>) in
            for i in 0..<20 { out.push(.frame(i)) }
            out.push(.end(duration: 2))
        }
        let outputs = pipeline.tee("tee", from: source, count: 2, capacity: 1)
        // The second consumer takes one value and leaves; the first must still get everything.
        guard case .frame(0)? = try outputs[1].pop() else {
            Issue.record("second output did not start with frame 0")
            return
        }
        outputs[1].cancel()
        var frames: [Int] = []
        var end: Double?
        while let message = try outputs[0].pop() {
            switch message {
            case .frame(let value): frames.append(value)
            case .end(let duration, _): end = duration
            }
        }
        #expect(frames == Array(0..<20))
        #expect(end == 2)
    }
}
