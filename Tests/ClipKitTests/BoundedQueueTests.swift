// The bounded queue blocks producers at capacity and carries errors and cancellation.
import Foundation
import Testing
@testable import ClipKit

@Suite struct BoundedQueueTests {
    struct Boom: Error {}

    @Test func producerWaitsAtCapacity() throws {
        let queue = BoundedQueue<Int>(capacity: 2)
        let pushed = NSLock()
        nonisolated(unsafe) var count = 0
        let thread = Thread {
            for i in 0..<10 {
                queue.push(i)
                pushed.lock(); count += 1; pushed.unlock()
            }
            queue.finish()
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.2)
        pushed.lock(); let early = count; pushed.unlock()
        #expect(early <= 2, "the producer ran ahead of the capacity: \(early)")
        var got: [Int] = []
        while let value = try queue.pop() { got.append(value) }
        #expect(got == Array(0..<10))
    }

    @Test func errorsArriveAfterTheQueuedValues() throws {
        let queue = Stage.start(name: "test", capacity: 4) { (out: BoundedQueue<Int>) in
            out.push(1)
            throw Boom()
        }
        #expect(try queue.pop() == 1)
        #expect(throws: Boom.self) { try queue.pop() }
    }

    @Test func cancelStopsTheProducer() throws {
        let source = Stage.start(name: "endless", capacity: 1) { (out: BoundedQueue<Int>) in
            var i = 0
            while out.push(i) { i += 1 }
        }
        let mapped = Stage.map(source, name: "double", capacity: 1) { $0 * 2 }
        #expect(try mapped.pop() == 0)
        mapped.cancel()
        // The cancel travels upstream; the endless producer stops instead of spinning forever.
        for _ in 0..<100 where !source.isCancelled { Thread.sleep(forTimeInterval: 0.01) }
        #expect(source.isCancelled)
    }
}
