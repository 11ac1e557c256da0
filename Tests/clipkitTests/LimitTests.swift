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
        process.arguments = ["-c", "ulimit -f \(blocks); exec \(quoted)"]
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
        let result = try runLimited([arguments[0], Fixture.url("video/\(arguments[1])").path] + arguments.dropFirst(2), blocks: 20, in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(CLI.files(in: dir).isEmpty, "left: \(CLI.files(in: dir))")
    }
}
