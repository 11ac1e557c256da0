// The frames of one decode, pulled by the caller from a bounded queue fed by a joined decode thread.
import Foundation

/// Something that decodes frames into a `FrameOutput` on a decode thread: a video's
/// `FrameDecoder` or a GIF's `GIFFrameSource`.
protocol FrameProducer: AnyObject {
    /// A guess at how many frames will come (for progress), nil when unknown.
    var expectedCount: Int? { get }
    /// Decodes, pushing frames and then the `end` message; returns early when output stops.
    func run(into output: inout FrameOutput) throws
}

/// Where a producer puts its frames: the queue, counted against `maxFrames`. Owned by the
/// producing thread. The one place where source time becomes output time: every time and the
/// end's duration are divided by `speed` here, so no consumer divides again. With a `recording`
/// the decoder keeps its pictures there for later passes (`FrameCache`), and when the consumer
/// stops early it goes on decoding for the recording alone (`consumerStopped`: no picture is
/// made), until the stream ends or the recording passes its budget, or a later pass takes the
/// frames over (`succession`).
struct FrameOutput {
    /// The consumer's queue (a later pass's, once it took the frames over).
    private(set) var queue: BoundedQueue<StreamMessage<VideoFrame>>
    let maxFrames: Int?
    let speed: Double
    /// The size frames are wanted at (producers that scale their own pictures read it here).
    private(set) var size: FrameSize
    private(set) var pushedCount = 0
    /// Where a `FrameDecoder` keeps what it decodes, for later passes.
    var recording: DecodedFrames?
    /// The passes that may take the frames over once the consumer stopped (`DecodeSuccession`).
    var succession: DecodeSuccession?
    /// The consumer took no more frames, and a recording is still being made.
    private(set) var consumerStopped = false

    init(queue: BoundedQueue<StreamMessage<VideoFrame>>, options: FrameReadOptions) {
        self.queue = queue
        maxFrames = options.maxFrames
        speed = options.speed
        size = options.size
    }

    /// A decoder is filling `recording`, it is within its budget, and a pass may still want it.
    private var isRecording: Bool {
        recording.map { $0.source != nil && !$0.isCut } ?? false && !(succession?.isAbandoned ?? false)
    }

    /// Once the consumer stopped, with the recording intact: the pass waiting to take the frames
    /// over (`DecodeSuccession`), now the consumer (its queue, its size). The producer then
    /// queues the recorded pictures for it (`replay`) before the next one.
    mutating func takeSuccessor() -> Bool {
        guard consumerStopped, isRecording, let next = succession?.take() else { return false }
        queue = next.queue
        size = next.size
        consumerStopped = false
        return true
    }

    /// Queues a recorded picture (already counted) for a consumer that took the frames over.
    /// False when that consumer stopped too.
    mutating func replay(_ image: RGBAImage, at places: [FrameSampler.Emission], sourceTime: Double) -> Bool {
        for place in places where !consumerStopped {
            if !queue.push(.frame(VideoFrame(image: image, index: place.index, time: place.time / speed, sourceTime: sourceTime))) {
                consumerStopped = true
            }
        }
        return !consumerStopped
    }

    /// Queues `image` once for each output place it fills. False when output must stop: the
    /// consumer cancelled (and no recording is being made) or `maxFrames` frames have been queued.
    mutating func push(_ image: RGBAImage, at places: [FrameSampler.Emission], sourceTime: Double) -> Bool {
        deliver(image, at: places, sourceTime: sourceTime)
    }

    /// Counts `places` without a picture, once the consumer stopped (`consumerStopped`): false
    /// when the decoder should stop, as `push`.
    mutating func passOver(_ places: [FrameSampler.Emission]) -> Bool {
        deliver(nil, at: places, sourceTime: 0)
    }

    private mutating func deliver(_ image: RGBAImage?, at places: [FrameSampler.Emission], sourceTime: Double) -> Bool {
        for place in places {
            if let maxFrames, pushedCount >= maxFrames { return false }
            if !consumerStopped, let image,
               !queue.push(.frame(VideoFrame(image: image, index: place.index, time: place.time / speed, sourceTime: sourceTime))) {
                consumerStopped = true
            }
            if consumerStopped && !isRecording { return false }
            pushedCount += 1
        }
        return !(maxFrames.map { pushedCount >= $0 } ?? false)
    }

    /// The last message: the source timeline lasts `duration` seconds (the output's, divided by the speed).
    func end(duration: Double, warnings: [String] = []) {
        recording?.finish(duration: duration, warnings: warnings)
        if !consumerStopped { queue.push(.end(duration: duration / speed, warnings: warnings)) }
    }
}

/// The frames of one decode, in output order. Pull them with `next()` (or `for try await`);
/// `cancel()` stops the decoder. After the last frame, `duration` holds the length of the output
/// timeline. The decode thread is joined by `cancel()` or when the sequence is released.
public final class FrameSequence: Sendable {
    let queue: BoundedQueue<StreamMessage<VideoFrame>>
    /// A guess at how many frames will come (for progress), nil when unknown.
    public let expectedCount: Int?
    private let thread: StageThread
    private let ending = LockedBox<(duration: Double?, warnings: [String])>((nil, []))

    init(producer: sending any FrameProducer, options: FrameReadOptions) {
        let queue = BoundedQueue<StreamMessage<VideoFrame>>(capacity: Swift.max(1, options.queueCapacity))
        self.queue = queue
        expectedCount = producer.expectedCount
        thread = StageThread(name: "ck.decode") {
            do {
                var output = FrameOutput(queue: queue, options: options)
                try producer.run(into: &output)
                queue.finish()
            } catch {
                queue.finish(throwing: error)
            }
        }
    }

    deinit { cancel() }

    /// The next frame, nil at the end; throws the decoder's error.
    public func next() throws -> VideoFrame? {
        frame(from: try queue.pop())
    }

    /// `next()` from async code: waits without blocking a thread.
    public func nextAsync() async throws -> VideoFrame? {
        frame(from: try await queue.next())
    }

    private func frame(from message: StreamMessage<VideoFrame>?) -> VideoFrame? {
        switch message {
        case .frame(let frame): return frame
        case .end(let duration, let warnings):
            ending.withLock { $0 = (duration, warnings) }
            return nil
        case nil: return nil
        }
    }

    /// Stops the decoder and waits for its thread to end.
    public func cancel() {
        queue.cancel()
        thread.join()
    }

    /// Seconds from the requested start to the end of the last frame shown; known once `next()`
    /// has returned nil at the end of the stream.
    public var duration: Double? { ending.withLock { $0.duration } }

    /// Damage the source was decoded around (a GIF's cut images, a missing trailer); known with
    /// `duration`.
    public var warnings: [String] { ending.withLock { $0.warnings } }
}

extension FrameSequence: AsyncSequence {
    public typealias Element = VideoFrame

    /// Pulls frames with `for try await frame in sequence`: the decode thread fills the bounded
    /// queue ahead of the task, and the task suspends (no thread blocked) while it is empty.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: FrameSequence
        public mutating func next() async throws -> VideoFrame? { try await sequence.nextAsync() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}
