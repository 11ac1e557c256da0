// Every resource limit is a one-line error naming its option, exit 1, and no output.
import Foundation
import Testing
import TestSupport

@Suite struct LimitTests {
    @Test(arguments: [
        (["gif", "counter.mp4", "--max-frames", "5"], "--max-frames"),
        (["gif", "counter.mp4", "--max-duration", "2"], "--max-duration"),
        (["gif", "counter.mp4", "--max-output", "1000"], "--max-output"),
        (["gif", "counter.mp4", "--max-pixels", "100"], "--max-pixels"),
        (["thumb", "counter.mp4", "--max-pixels", "100"], "--max-pixels"),
        (["explode", "counter.mp4", "--max-frames", "10"], "--max-frames"),
        (["gif", "motion.mp4", "--fps", "50", "--size", "0", "--timeout", "0.01"], "--timeout"),
        // Lossy: the writer hands what it showed back to the quantiser; a limit on either side ends both.
        (["gif", "counter.mp4", "--lossy", "40", "--max-output", "1000"], "--max-output"),
        (["gif", "counter.mp4", "--lossy", "40", "--max-frames", "5"], "--max-frames"),
        (["gif", "motion.mp4", "--lossy", "40", "--fps", "50", "--size", "0", "--timeout", "0.01"], "--timeout"),
        // --max-bytes: passes that stop early for the limit are not errors; the input's limits are.
        (["gif", "counter.mp4", "--max-bytes", "2MB", "--max-output", "1000"], "--max-output"),
        (["gif", "counter.mp4", "--max-bytes", "20KB", "--max-frames", "5"], "--max-frames"),
        (["gif", "motion.mp4", "--max-bytes", "30KB", "--fps", "50", "--size", "0", "--timeout", "0.05"], "--timeout"),
    ])
    func limitIsAnError(_ arguments: [String], _ option: String) throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run([arguments[0], Fixture.url("video/\(arguments[1])").path, "-o", "out"] + arguments.dropFirst(2), in: dir)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("(raise it with \(option))"), "\(result.stderr)")
        #expect(CLI.files(in: dir).isEmpty, "left: \(CLI.files(in: dir))")
    }
}

@Suite struct OutputSafetyTests {
    /// Runs clipkit under a shell with a file-size limit of `blocks` 512-byte blocks (a full disk, in effect).
    func runLimited(_ arguments: [String], blocks: Int, in dir: URL) throws -> CLI.Result {
        let quoted = ([CLI.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // TMPDIR names no directory, for clipkit only (which never uses it): a ThreadSanitizer
        // build writes a 512 KiB file there at start-up and maps it over its shadow memory;
        // under `ulimit -f` that file is cut short and the first read past its end is a SIGBUS
        // inside the TSan runtime. With no usable TMPDIR TSan skips that (an optimisation only).
        process.arguments = ["-c", "ulimit -f \(blocks); TMPDIR=/nonexistent/clipkit-tests exec \(quoted)"]
        process.currentDirectoryURL = dir
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Result(status: process.terminationStatus, stdout: "", stderr: String(decoding: data, as: UTF8.self))
    }

    @Test(arguments: [["gif", "motion.mp4", "-o", "out.gif"], ["explode", "counter.mp4", "-o", "frames"], ["thumb", "motion.mp4", "--size", "0", "-o", "t.png"]])
    func fullDiskLeavesNothing(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let input = Fixture.url("video/\(arguments[1])").path
        let result = try runLimited([arguments[0], input] + arguments.dropFirst(2), blocks: 20, in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        // The real cause, in the same words for every command (giflib used to say "Write failed"),
        // after the input and the output it met.
        #expect(result.stderr.hasPrefix("clipkit: \(input): cannot write output: \(dir.path)/") && result.stderr.hasSuffix(": File too large\n"),
                "\(result.stderr)")
        #expect(CLI.files(in: dir).isEmpty, "left: \(CLI.files(in: dir))")
    }

    /// A really full disk: a 64 KiB tmpfs (needs root, as CI and the dev machines run; skipped otherwise).
    @Test(arguments: [["gif", "motion.mp4", "-o", "out.gif"], ["explode", "counter.mp4", "-o", "frames"], ["thumb", "motion.mp4", "--size", "0", "-o", "t.png"]])
    func fullFilesystemNamesENOSPC(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let mount = try CLI.runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.path])
        guard mount == 0 else { return }  // not root: nothing to test here
        defer { _ = try? CLI.runTool("/bin/umount", [dir.path]) }
        // Leave 4 KiB: less than any of these outputs needs.
        let filler = dir.appendingPathComponent(".filler")
        try Data(count: 60 << 10).write(to: filler)
        defer { try? FileManager.default.removeItem(at: filler) }
        let input = Fixture.url("video/\(arguments[1])").path
        let result = try CLI.run([arguments[0], input] + arguments.dropFirst(2), in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("clipkit: \(input): cannot write output: \(dir.path)/")
                && result.stderr.hasSuffix(": No space left on device\n"), "\(result.stderr)")
        #expect(CLI.files(in: dir) == [".filler"], "left: \(CLI.files(in: dir))")
    }

    /// --max-output is a budget checked before each write: nothing past it reaches the disk,
    /// and the message names the input first, then the output by its own name (a directory's
    /// files were named under its hidden temp name: `.frames.clipkit-gzePVL/frame_0000.png`).
    @Test(arguments: [["gif", "motion.mp4", "-o", "out.gif"], ["explode", "counter.mp4", "-o", "frames"], ["thumb", "motion.mp4", "--size", "0", "-o", "t.png"],
                      ["gif", "motion.mp4", "-o", "fit.gif", "--max-bytes", "2MB"]])
    func maxOutputStopsBeforeWriting(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory("maxOutput-\(arguments[0])-\(arguments.count)")
        let input = Fixture.url("video/\(arguments[1])").path, output = arguments[arguments.firstIndex(of: "-o")! + 1]
        let result = try CLI.run([arguments[0], input] + arguments.dropFirst(2) + ["--max-output", "3000"], in: dir)
        #expect(result.status == 1)
        #expect(result.stderr.contains("output size exceeds the limit of 3000 bytes (raise it with --max-output)"), "\(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("clipkit: \(input): \(dir.path)/\(output)") && !result.stderr.contains(".clipkit-"),
                "\(result.stderr)")
        #expect(CLI.files(in: dir).isEmpty, "left: \(CLI.files(in: dir))")
    }
}

@Suite struct LimitMeaningTests {
    /// --max-duration bounds seconds of source: 2.5 s of source slowed to a 5 s GIF is within 3 s.
    @Test func maxDurationCountsSourceSecondsWhateverTheSpeed() throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run(["gif", Fixture.url("video/counter.mp4").path, "--speed", "0.5", "--end", "2.5",
                                  "--max-duration", "3", "-o", "slow.gif", "--json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"duration_ms\":5000"), "\(result.stdout)")
        let refused = try CLI.run(["gif", Fixture.url("video/counter.mp4").path, "--speed", "2", "--end", "3.5",
                                   "--max-duration", "3", "-o", "fast.gif"], in: dir)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("3.5s of source exceeds the limit of 3s (raise it with --max-duration)"), "\(refused.stderr)")
    }
}
