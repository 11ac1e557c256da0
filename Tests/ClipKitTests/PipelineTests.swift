// Every stage a conversion starts has exited when it returns or throws; threads carry their names to the OS.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

/// Pipeline tests count the threads of the whole process, so they must not overlap each other.
@Suite(.serialized) struct PipelineTests {
    /// The threads of this process, by kernel id, with their names as the OS sees them.
    static func threads() -> [String: String] {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var names: [String: String] = [:]
        for id in ids {
            let name = (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? ""
            names[id] = name.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return names
    }

    /// Threads named with `label` (a run's stage label) still alive. Other suites run
    /// conversions at the same time, so each run here has a label of its own.
    static func stageThreads(_ label: String = "ck") -> [String] {
        threads().values.filter { $0.hasPrefix(label + ".") }.sorted()
    }

    /// Threads named with `label` after their owner joined them. pthread_join returns when the
    /// kernel clears the thread's id during its exit, a moment before the task leaves
    /// /proc/self/task; a thread still listed is given up to 100 ms to finish leaving (a stage
    /// that was not joined keeps working far longer: before the pipeline, 300 ms).
    static func leftoverStageThreads(_ label: String) -> [String] {
        for _ in 0..<20 {
            if stageThreads(label).isEmpty { return [] }
            usleep(5_000)
        }
        return stageThreads(label)
    }

    @Test func failingConvertLeavesNoThreadBehind() throws {
        var options = GIFOptions()
        options.limits.maxFrames = 5  // fails midway: the clip has 40 frames at 10 fps
        let out = Fixture.scratchDirectory().appendingPathComponent("fail.gif")
        var converter = GIFConverter(options: options)
        converter.stageLabel = "tfail"
        let seen = LockedBox(0)
        converter.progress = { _, _ in seen.withLock { $0 = max($0, Self.stageThreads("tfail").count) } }
        #expect(throws: ClipKitError.self) {
            _ = try converter.convert(video: Fixture.url("video/counter.mp4"), to: out)
        }
        #expect(seen.withLock { $0 } >= 2, "the run's stages were seen while it ran")
        // No sleep, no polling: the stages were joined before convert threw.
        #expect(Self.leftoverStageThreads("tfail").isEmpty, "stage threads still running: \(Self.leftoverStageThreads("tfail"))")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func failingDecodeStopsEveryStageOfAPosterRun() throws {
        let dir = Fixture.scratchDirectory()
        var options = GIFOptions()
        options.limits.maxOutputBytes = 2000  // the writer fails after a frame or two
        var converter = GIFConverter(options: options)
        converter.stageLabel = "tposter"
        #expect(throws: ClipKitError.self) {
            _ = try converter.convert(video: Fixture.url("video/motion.mp4"), to: dir.appendingPathComponent("a.gif"),
                                      poster: dir.appendingPathComponent("a.png"))
        }
        #expect(Self.leftoverStageThreads("tposter").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "nothing left behind")
    }

    /// Two PNG writers: when frames 5 and 6 (one on each) both fail, the error is frame 5's even
    /// though frame 6 fails first; nothing more is handed over, and both writers have stopped
    /// when the error is thrown.
    @Test func failingFrameWritersReportTheEarliestFrame() throws {
        let small = RGBAImage(width: 16, height: 16)
        // Frame 5 fails late: a large picture (slow to encode) whose name is too long for the
        // final rename. Frame 6 fails at once: a directory is where it goes.
        var noise = RGBAImage(width: 1200, height: 1200)
        var seed: UInt32 = 1
        for i in noise.pixels.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise.pixels[i] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        let longName = String(repeating: "x", count: 300) + ".png"
        var seen = Set<String>()
        for _ in 0..<10 {
            let dir = Fixture.scratchDirectory()
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("frame_6.png"), withIntermediateDirectories: true)
            let pipeline = Pipeline()
            var writer = FrameWriterStage(pipeline: pipeline, layout: .twoWriters, directory: dir, filter: .none,
                                          budget: ByteBudget(limit: .max), label: "tpng")
            var handedOver = 0
            let error = #expect(throws: ClipKitError.self) {
                for n in 0..<200 {
                    try writer.write(n == 5 ? noise : small, name: n == 5 ? longName : "frame_\(n).png")
                    handedOver += 1
                    // Both writers have taken frames by now, so both are running (and named).
                    if n == 5 { seen.formUnion(Self.stageThreads("tpng")) }
                }
                try writer.finish()
            }
            pipeline.stop()
            guard case .outputFailed(let path, let reason)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                continue
            }
            #expect(path.hasSuffix("/" + longName) && reason == "File name too long", "\(path): \(reason)")
            #expect(handedOver < 20, "\(handedOver) frames handed over after the failure")
            let files = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
            #expect(files.isSuperset(of: (0..<5).map { "frame_\($0).png" }), "the frames before the failed one are written")
            #expect(files.count < 20, "\(files.count) files: writing went on after the failure")
            #expect(Self.leftoverStageThreads("tpng").isEmpty)
        }
        #expect(seen == ["tpng.png1", "tpng.png2"])
    }

    @Test func stageThreadsAreNamedForTheOS() throws {
        let pipeline = Pipeline()
        let seen = LockedBox<[String]>([])
        let done = pipeline.stage("tnamed.stage", capacity: 1) { (out: BoundedQueue<Int>) in
            seen.withLock { $0 = Self.stageThreads("tnamed") }
            out.push(1)
        }
        _ = try done.pop()
        pipeline.stop()
        #expect(seen.withLock { $0 } == ["tnamed.stage"])
        #expect(Self.leftoverStageThreads("tnamed").isEmpty)
    }

    @Test func asyncFramesAddNoThreadPerFrame() async throws {
        let before = Set(Self.threads().keys)
        var created = Set<String>()
        var count = 0
        for try await _ in try VideoReader(Fixture.url("video/counter.mp4"), FrameReadOptions(fps: 30)).frames {
            created.formUnion(Set(Self.threads().keys).subtracting(before))
            count += 1
        }
        #expect(count == 120)
        // One decode thread and the decoder's workers, not one thread per frame (120). Other
        // suites running meanwhile add a few of their own.
        #expect(created.count < 40, "\(created.count) threads appeared while 120 frames were read")
    }
}
