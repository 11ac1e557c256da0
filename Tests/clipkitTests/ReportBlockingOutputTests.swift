// clipkit report over --json lines that name outputs no read may touch: a FIFO, a character device,
// a /proc file whose reads block; and run files that are not regular files.
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ReportBlockingOutputTests {
    /// Outputs that are not regular files (or are regular files of size 0, as /proc reports) are
    /// warned about and never opened: the report is written at once, with and without --copy,
    /// and nothing of them is copied. A run file that is a FIFO or a device is refused in one line.
    @Test func outputsThatWouldBlockAreWarnedAboutNotRead() throws {
        let dir = Fixture.scratchDirectory()
        let fifo = dir.appendingPathComponent("fifo.gif").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let gif = Fixture.url("gif/loop_zero.gif").path
        var outputs = [fifo, "/dev/zero", gif]
        if FileManager.default.fileExists(atPath: "/proc/kmsg") { outputs.append("/proc/kmsg") }
        let lines = outputs.enumerated().map { index, path in
            "{\"command\":\"gif\",\"input\":\"/clips/\(index).mp4\",\"status\":\"ok\",\"outputs\":[\"\(path)\"],\"bytes\":10}"
        }
        try (lines.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("run.jsonl"), atomically: true, encoding: .utf8)
        for copy in [false, true] {
            let report = try Spawn.clipkit(["report", "run.jsonl", "-o", "r\(copy)"] + (copy ? ["--copy"] : []), in: dir, killAfter: 30)
            #expect(report.exitStatus == 0 && !report.killed, "\(report)")
            let summary = try String(contentsOf: dir.appendingPathComponent("r\(copy)/summary.md"), encoding: .utf8)
            #expect(summary.contains("output is not a regular file or directory: \(fifo)"), "\(summary)")
            #expect(summary.contains("output is not a regular file or directory: /dev/zero"), "\(summary)")
            if outputs.contains("/proc/kmsg") { #expect(summary.contains("output is empty: /proc/kmsg"), "\(summary)") }
            // The real GIF is still copied (outside the report's tree), and only it.
            let media = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("r\(copy)/media").path)) ?? []
            #expect(media.filter { !$0.hasSuffix("-frames.png") } == ["3-1-loop_zero.gif"], "\(media)")
        }
        for runFile in [fifo, "/dev/zero"] {
            let refused = try Spawn.clipkit(["report", runFile, "-o", "bad"], in: dir, killAfter: 30)
            #expect(refused.exitStatus == 1 && !refused.killed, "\(refused)")
            #expect(refused.errorLines == ["clipkit: \(runFile): cannot read: not a regular file"], "\(refused)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad").path))
    }
}
