// `--max-bytes` passes replay the pictures the first pass decoded (`FrameCache`): the frames and
// the GIF must be those of a decode, byte for byte.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct FrameCacheTests {
    /// Rotation, HDR tone mapping, a paletted codec, transparency, B-frames, variable frame rate, a cut file.
    static let clips = ["motion.mp4", "rotated90.mov", "hdr10_pq.mp4", "palette_raw.avi", "alpha.mov", "seek_bframes_edit.mp4",
                        "vfr.mkv", "truncated_faststart.mp4"]

    /// Every message a producer queues, in order (the queue holds them all: no consumer thread needed).
    func messages(run: (inout FrameOutput) throws -> Void, options: FrameReadOptions) rethrows -> [StreamMessage<VideoFrame>] {
        let queue = BoundedQueue<StreamMessage<VideoFrame>>(capacity: 10_000)
        var output = FrameOutput(queue: queue, options: options)
        try run(&output)
        queue.finish()
        var all: [StreamMessage<VideoFrame>] = []
        while let message = try? queue.pop() { all.append(message) }
        return all
    }

    /// An output whose consumer has already stopped, recording into a fresh `DecodedFrames`.
    func recordingWithoutConsumer(_ read: FrameReadOptions) -> FrameOutput {
        let stopped = BoundedQueue<StreamMessage<VideoFrame>>(capacity: 2)
        stopped.cancel()
        var output = FrameOutput(queue: stopped, options: read)
        output.recording = DecodedFrames(budget: 64 << 20)
        return output
    }

    func describe(_ messages: [StreamMessage<VideoFrame>]) -> [String] {
        messages.map { message in
            switch message {
            case .frame(let frame):
                "\(frame.index) \(frame.time) \(frame.sourceTime) \(frame.image.width)x\(frame.image.height) \(frame.image.pixels.hashValue)"
            case .end(let duration, let warnings):
                "end \(duration) \(warnings)"
            }
        }
    }

    @Test(arguments: clips)
    func replayedPicturesAreTheDecodersAtEverySize(_ name: String) throws {
        let url = Fixture.url("video/\(name)")
        var read = FrameReadOptions(fps: 10, size: .width(480))
        read.speed = 1.5
        let recording = DecodedFrames(budget: 64 << 20)
        let recorded = try messages(run: { output in
            output.recording = recording
            try VideoReader(url: url).makeProducer(options: read).run(into: &output)
        }, options: read)
        #expect(recording.isComplete, "\(name): the recording is not complete")
        #expect(recording.pictures.count > 0)
        for size in [FrameSize.width(480), .width(97), .fit(width: 50, height: 50), .exact(width: 33, height: 65)] {
            read.size = size
            let decoded = try messages(run: { try VideoReader(url: url).makeProducer(options: read).run(into: &$0) }, options: read)
            let replayed = try messages(run: { try DecodedFramesReplay.run(recording, options: read, path: name, into: &$0) }, options: read)
            #expect(describe(replayed) == describe(decoded), "\(name) at \(size)")
            if size == .width(480) { #expect(describe(recorded) == describe(decoded)) }
        }
    }

    @Test func aRecordingOverItsBudgetKeepsNothing() throws {
        let url = Fixture.url("video/motion.mp4")
        let read = FrameReadOptions(fps: 10, size: .width(160))
        let recording = DecodedFrames(budget: 200_000)
        _ = try messages(run: { output in
            output.recording = recording
            try VideoReader(url: url).makeProducer(options: read).run(into: &output)
        }, options: read)
        #expect(recording.isCut)
        #expect(!recording.isComplete)
        #expect(recording.pictures.isEmpty && recording.bytes == 0)
    }

    /// The first pass decodes on after its GIF stopped, so the recording is whole.
    @Test func aConsumerThatStopsEarlyStillLeavesAWholeRecording() throws {
        let url = Fixture.url("video/motion.mp4")
        let read = FrameReadOptions(fps: 10, size: .width(160))
        var output = recordingWithoutConsumer(read)
        let recording = try #require(output.recording)
        try VideoReader(url: url).makeProducer(options: read).run(into: &output)
        #expect(recording.isComplete)
        #expect(recording.pictures.count == 30)
    }

    /// A pass that takes the decode over while it goes on for its recording (`DecodeSuccession`)
    /// gets every frame from the first, at its own size: the messages of a decode at that size;
    /// so does a second one, attached after the first of them stopped. Then the recording is whole.
    @Test(arguments: ["motion.mp4", "rotated90.mov", "seek_bframes_edit.mp4", "vfr.mkv"])
    func passesThatTakeTheDecodeOverGetEveryFrame(_ name: String) throws {
        let url = Fixture.url("video/\(name)")
        var read = FrameReadOptions(fps: 10, size: .width(160))
        var output = recordingWithoutConsumer(read)
        let recording = try #require(output.recording)
        let succession = DecodeSuccession()
        output.succession = succession
        // The first successor stops after 4 frames; the second takes over from there. The first's
        // queue holds 4, so the decode waits on it and cannot end before the second asks (under
        // load it could: the second then found the decode over, and this test failed).
        let (first, second) = (BoundedQueue<StreamMessage<VideoFrame>>(capacity: 4), BoundedQueue<StreamMessage<VideoFrame>>(capacity: 10_000))
        let firstFrames = LockedBox<[StreamMessage<VideoFrame>]>([])
        let taken = LockedBox<[Bool]>([])
        let passes = StageThread(name: "test.passes") {
            let took = succession.attach(.init(queue: first, size: .width(97)))
            taken.withLock { $0.append(took) }
            // (Not taken, nothing would ever come.)
            guard took else { return }
            var received: [StreamMessage<VideoFrame>] = []
            while received.count < 4, let message = try? first.pop() { received.append(message) }
            firstFrames.store(received)
            // The second asks while the decode still feeds the first; the first stops once it waits.
            let asking = StageThread(name: "test.second") {
                taken.withLock { $0.append(succession.attach(.init(queue: second, size: .exact(width: 33, height: 65)))) }
            }
            while !succession.isWaiting { usleep(1000) }
            first.cancel()
            asking.join()
        }
        while !succession.isWaiting { usleep(1000) }
        try VideoReader(url: url).makeProducer(options: read).run(into: &output)
        succession.end()
        passes.join()
        second.finish()
        var secondFrames: [StreamMessage<VideoFrame>] = []
        while let message = try second.pop() { secondFrames.append(message) }
        #expect(taken.withLock { $0 } == [true, true], "\(name)")
        #expect(recording.isComplete, "\(name)")
        read.size = .width(97)
        let atFirst = try messages(run: { try VideoReader(url: url).makeProducer(options: read).run(into: &$0) }, options: read)
        #expect(describe(firstFrames.withLock { $0 }) == Array(describe(atFirst).prefix(4)), "\(name)")
        read.size = .exact(width: 33, height: 65)
        let atSecond = try messages(run: { try VideoReader(url: url).makeProducer(options: read).run(into: &$0) }, options: read)
        #expect(describe(secondFrames) == describe(atSecond), "\(name)")
        // Once the decode has ended, nothing is taken: the pass replays the recording instead.
        #expect(!succession.attach(.init(queue: BoundedQueue(capacity: 1), size: .width(97))))
    }

    /// A producer that keeps no pictures (a GIF source) stops with its consumer, recording or not.
    @Test func aProducerThatKeepsNoPicturesStopsWithItsConsumer() throws {
        let url = Fixture.url("gif/local_palettes.gif")
        let read = FrameReadOptions(size: .width(32))
        var output = recordingWithoutConsumer(read)
        let recording = try #require(output.recording)
        // It stops at its first frame, which nobody took: "no frames" (a producer that decoded on
        // for the recording would count every frame and end normally).
        var stopped = false
        do { try VideoReader(url: url).makeProducer(options: read).run(into: &output) } catch { stopped = true }
        #expect(stopped)
        #expect(output.pushedCount == 0)
        #expect(!recording.isComplete)
    }

    /// The GIF `--max-bytes` writes with the pictures replayed (recorded by its first pass, or by
    /// the decode of a WebP beside it) equals the one written when every pass decodes (a
    /// `--max-memory` whose fifth cannot hold them turns the recording off: 16 MiB, where the
    /// measured pass itself fits; 3 s of 320x180 or 1 s of 320x240 do not fit in 3.2 MiB).
    @Test(arguments: ["motion.mp4", "rotated90.mov", "seek_bframes_edit.mp4"])
    func maxBytesWritesTheSameGIFWithAndWithoutTheRecording(_ name: String) throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/\(name)").path
        #expect(try CLI.run(["gif", clip, "-o", "default.gif"], in: dir).status == 0)
        let full = try Data(contentsOf: dir.appendingPathComponent("default.gif")).count
        for fraction in [0.3, 0.6] {
            let limit = "\(Int(Double(full) * fraction))"
            let cached = try CLI.run(["gif", clip, "-o", "cached.gif", "--max-bytes", limit, "--force"], in: dir)
            let decoded = try CLI.run(["gif", clip, "-o", "decoded.gif", "--max-bytes", limit, "--max-memory", "\(16 << 20)", "--force"], in: dir)
            // With a WebP beside it, the WebP's decode records the pictures and no GIF pass decodes.
            let companion = try CLI.run(["gif", clip, "-o", "companion.gif", "-o", "companion.webp", "--max-bytes", limit, "--force"], in: dir)
            let companionDecoded = try CLI.run(["gif", clip, "-o", "companion-decoded.gif", "-o", "companion-decoded.webp", "--max-bytes", limit,
                                                "--max-memory", "\(16 << 20)", "--force"], in: dir)
            #expect(cached.status == decoded.status && companion.status == decoded.status && companionDecoded.status == decoded.status,
                    "\(name): \(cached.stderr) / \(decoded.stderr) / \(companion.stderr) / \(companionDecoded.stderr)")
            if cached.status == 0 {
                // (A GIF with a WebP beside it carries another fingerprint comment: compared with its own kind.)
                for (gif, reference) in [("cached.gif", "decoded.gif"), ("companion.gif", "companion-decoded.gif")] {
                    #expect(try Data(contentsOf: dir.appendingPathComponent(gif)) == Data(contentsOf: dir.appendingPathComponent(reference)),
                            "\(name): \(gif) at \(limit) bytes")
                }
                #expect(try Data(contentsOf: dir.appendingPathComponent("companion.webp")) == Data(contentsOf: dir.appendingPathComponent("companion-decoded.webp")),
                        "\(name): the WebP at \(limit) bytes")
            }
        }
    }
}
