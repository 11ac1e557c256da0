// Batch use as CI jobs do it: directories, mixed good and bad files, JSON, incremental runs, --jobs, signals.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct BatchCommandTests {
    /// media/ with good clips at two levels, a bad one, a text file, and an extension-less video.
    func makeMedia(in dir: URL) throws -> URL {
        let media = dir.appendingPathComponent("media")
        let sub = media.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let copy = { (name: String, to: URL) in try FileManager.default.copyItem(at: Fixture.url("video/\(name)"), to: to) }
        try copy("counter.mp4", media.appendingPathComponent("a.mp4"))
        try copy("truncated_faststart.mp4", media.appendingPathComponent("b.mp4"))
        try copy("vfr.mkv", sub.appendingPathComponent("c"))  // no extension: found by content
        // Sound named like a video: an input, and its error (found by content, it is ignored).
        try copy("audio_only.m4a", sub.appendingPathComponent("d.mp4"))
        try Data("notes\n".utf8).write(to: media.appendingPathComponent("README.txt"))
        return media
    }

    struct Line: Decodable {
        var input: String
        var outputs: [String]
        var status: String
        var error: String?
        var frames: Int?
        var width: Int?
    }

    func lines(_ stdout: String) throws -> [Line] {
        try stdout.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// Two inputs with one output name (clip.mp4 beside clip.webm) fail, each naming the other,
    /// and the batch goes on: the other input is written, the exit status is 1, and every shard
    /// fails the same two. It was a usage error (exit 2) that wrote nothing at all.
    @Test func inputsWithOneOutputNameFailAndTheBatchGoesOn() throws {
        let dir = Fixture.scratchDirectory()
        let media = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        for (fixture, name) in [("counter.mp4", "clip.mp4"), ("vp9.webm", "clip.webm"), ("counter.mp4", "other.mp4")] {
            try FileManager.default.copyItem(at: Fixture.url("video/\(fixture)"), to: media.appendingPathComponent(name))
        }
        let run = try CLI.run(["thumb", media.path, "-r", "-o", "out/", "--json"], in: dir)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(CLI.files(in: dir.appendingPathComponent("out")) == ["other.png"])
        let reports = try lines(run.stdout)
        #expect(reports.map(\.status) == ["error", "error", "ok"])
        let out = dir.appendingPathComponent("out/clip.png").path
        #expect(reports[0].error == "\(media.path)/clip.mp4: cannot write output: \(out) would also be written from \(media.path)/clip.webm; convert them in separate runs or rename one")
        #expect(run.stderrLines.filter { $0.contains("would also be written") }.count == 2, "\(run.stderr)")
        // Each shard fails the inputs it holds of the two, whichever shard holds the other.
        var failed: [String] = []
        for shard in ["1/2", "2/2"] {
            let part = try CLI.run(["thumb", media.path, "-r", "-o", "shards/", "--json", "--shard", shard], in: dir)
            failed += try lines(part.stdout).filter { $0.status == "error" }.map { URL(fileURLWithPath: $0.input).lastPathComponent }
        }
        #expect(failed.sorted() == ["clip.mp4", "clip.webm"])
        // The same input twice is still bad usage, wherever it comes among colliding ones.
        #expect(try CLI.run(["thumb", media.path + "/other.mp4", media.path + "/other.mp4", "-o", "twice/"], in: dir).status == 2)
        let clip = media.path + "/clip.mp4", webm = media.path + "/clip.webm"
        for order in [[clip, webm, webm], [webm, webm, clip]] {
            let twice = try CLI.run(["thumb"] + order + ["-o", "twice/"], in: dir)
            #expect(twice.status == 2 && twice.stderr == "clipkit: -o: \(webm) is given twice; give it once\n", "\(order): \(twice.stderr)")
        }
    }

    @Test func recursiveBatchWithJSONAndIncrementalRerun() throws {
        let dir = Fixture.scratchDirectory()
        let media = try makeMedia(in: dir)
        let first = try CLI.run(["thumb", media.path, "-r", "-o", "previews/", "--json"], in: dir)
        #expect(first.status == 1, "the audio-only file fails: \(first.stderr)")
        #expect(CLI.files(in: dir.appendingPathComponent("previews")) == ["a.png", "b.png", "sub", "sub/c.png"])
        let reports = try lines(first.stdout)
        #expect(reports.map { URL(fileURLWithPath: $0.input).lastPathComponent } == ["a.mp4", "b.mp4", "c", "d.mp4"])
        #expect(reports.map(\.status) == ["ok", "ok", "ok", "error"])
        #expect(reports[3].error?.contains("no video stream") == true)
        #expect(reports[0].width == 160 && reports[0].frames == 1)
        #expect(first.stderr.contains("clipkit: \(media.path)/sub/d.mp4: no video stream"))

        let second = try CLI.run(["thumb", media.path, "-r", "-o", "previews/", "--json"], in: dir)
        #expect(try lines(second.stdout).map(\.status) == ["skipped", "skipped", "skipped", "error"])
        #expect(second.stderr.contains("3 skipped (up to date"))

        // Changed options redo the work; --force redoes it too.
        let resized = try CLI.run(["thumb", media.path, "-r", "-o", "previews/", "--json", "--width", "50"], in: dir)
        #expect(try lines(resized.stdout).map(\.status) == ["ok", "ok", "ok", "error"])
        #expect(try PNGReader.read(dir.appendingPathComponent("previews/a.png")).width == 50)
        let forced = try CLI.run(["thumb", media.path, "-r", "-o", "previews/", "--json", "--width", "50", "--force"], in: dir)
        #expect(try lines(forced.stdout).map(\.status) == ["ok", "ok", "ok", "error"])

        // A touched input is still up to date (its bytes are the same); a changed one is redone.
        let input = media.appendingPathComponent("a.mp4")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: input.path)
        let touched = try CLI.run(["thumb", media.path, "-r", "-o", "previews/", "--json", "--width", "50"], in: dir)
        #expect(try lines(touched.stdout).map(\.status) == ["skipped", "skipped", "skipped", "error"])
        let handle = try FileHandle(forWritingTo: input)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = try CLI.run(["thumb", media.path, "-r", "-o", "previews/", "--json", "--width", "50"], in: dir)
        #expect(try lines(changed.stdout).map(\.status) == ["ok", "skipped", "skipped", "error"])
    }

    @Test func jobsDoNotChangeBytes() throws {
        let dir = Fixture.scratchDirectory()
        let inputs = ["counter.mp4", "motion.mp4", "vfr.mkv", "rotated90.mov"].map { Fixture.url("video/\($0)").path }
        let one = try CLI.run(["gif"] + inputs + ["-o", "one/", "--jobs", "1", "--fps", "5"], in: dir)
        let four = try CLI.run(["gif"] + inputs + ["-o", "four/", "--jobs", "4", "--fps", "5"], in: dir)
        #expect(one.status == 0 && four.status == 0)
        for name in ["counter.gif", "motion.gif", "vfr.gif", "rotated90.gif"] {
            let a = try Data(contentsOf: dir.appendingPathComponent("one/\(name)"))
            let b = try Data(contentsOf: dir.appendingPathComponent("four/\(name)"))
            #expect(a == b, "\(name)")
        }
    }

    @Test func explodeBatchMirrorsTree() throws {
        let dir = Fixture.scratchDirectory()
        let media = try makeMedia(in: dir)
        try FileManager.default.copyItem(at: Fixture.url("gif-test-suite/gifs/animated_loop.gif"), to: media.appendingPathComponent("sub/anim.gif"))
        let result = try CLI.run(["explode", media.appendingPathComponent("sub").path, "-o", "frames", "--json", "--fps", "2"], in: dir)
        #expect(result.status == 1, "d.mp4 has no video")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("frames/anim.frames/frames.json").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("frames/c.frames/frame_0000.png").path))
        // An emptied output directory is not up to date.
        let frames = dir.appendingPathComponent("frames/anim.frames")
        for name in try FileManager.default.contentsOfDirectory(atPath: frames.path) {
            try FileManager.default.removeItem(at: frames.appendingPathComponent(name))
        }
        let again = try CLI.run(["explode", media.appendingPathComponent("sub").path, "-o", "frames", "--json", "--fps", "2"], in: dir)
        #expect(again.stdout.contains("\"status\":\"ok\""), "\(again.stdout)")
        #expect(FileManager.default.fileExists(atPath: frames.appendingPathComponent("frames.json").path))
    }

    /// The output directories the run made go too (`-o new/sub/` was left behind, empty).
    @Test(arguments: [["gif", "motion.mp4", "--fps", "50", "--size", "0", "-o", "out.gif"],
                      ["gif", "motion.mp4", "--fps", "50", "--size", "0", "-o", "new/sub/"],
                      ["explode", "counter.mp4", "-o", "frames"]])
    func sigtermLeavesNothingBehind(_ arguments: [String]) throws {
        try interruptMidWrite(arguments, with: SIGTERM)
    }

    /// Every signal whose default action ends the process removes the temp output first, as
    /// SIGTERM does (SIGUSR1 and SIGALRM left `.out.gif.clipkit-XXXXXX` behind).
    @Test(arguments: [SIGUSR1, SIGALRM, SIGHUP, SIGXCPU])
    func otherEndingSignalsLeaveNothingBehind(_ signal: Int32) throws {
        try interruptMidWrite(["gif", "motion.mp4", "--fps", "50", "--size", "0", "-o", "out.gif"], with: signal)
    }

    /// Runs `clipkit COMMAND FIXTURE OPTIONS -q`, sends `signal` once its temp output exists, and
    /// checks it ended by that signal with nothing left in its directory.
    func interruptMidWrite(_ arguments: [String], with signal: Int32) throws {
        let dir = Fixture.scratchDirectory()
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = [arguments[0], Fixture.url("video/\(arguments[1])").path] + arguments.dropFirst(2) + ["-q"]
        process.currentDirectoryURL = dir
        try process.run()
        // Wait until the temp output exists, then stop the process mid-write.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !CLI.files(in: dir).contains(where: { $0.contains(".clipkit-") }) && process.isRunning {
            Thread.sleep(forTimeInterval: 0.002)
        }
        let wasWriting = process.isRunning
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(wasWriting, "the job finished before it could be interrupted")
        if wasWriting {
            #expect(process.terminationStatus == 128 + signal)
            #expect(CLI.files(in: dir).isEmpty, "left behind: \(CLI.files(in: dir))")
        }
    }

    /// Output files get 0666 less the umask, as any new file does: they were 0644 whatever it
    /// was, so a private umask (077) still made them readable to everyone.
    @Test(arguments: [("077", 0o600), ("002", 0o664), ("022", 0o644)])
    func outputModesFollowTheUmask(_ umask: String, _ mode: Int) throws {
        let dir = Fixture.scratchDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "umask \(umask); exec \"$0\" \"$@\"", CLI.binary.path, "thumb", Fixture.url("video/counter.mp4").path,
                             "-o", "t.png", "-q"]
        process.currentDirectoryURL = dir
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("t.png").path)
        #expect((attributes[.posixPermissions] as? Int) == mode, "umask \(umask): \(String(describing: attributes[.posixPermissions]))")
    }
}
