// clipkit report over runs files as CI hands them over: CRLF line ends, a byte-order mark, a file with no clipkit line at all.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ReportRunFileTests {
    /// gif and thumb --json over two clips in `dir`: the lines as clipkit printed them (LF ends).
    static func lines(in dir: URL) throws -> String {
        let clips = [Fixture.url("video/counter.mp4").path, Fixture.url("video/motion.mp4").path]
        var lines = ""
        for arguments in [["gif"] + clips + ["-o", "gifs/", "--width", "80"], ["thumb"] + clips + ["-o", "posters/"]] {
            let run = try CLI.run(arguments + ["--json"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            lines += run.stdout
        }
        return lines
    }

    static func write(_ text: String, prefix: [UInt8] = [], to name: String, in dir: URL) throws {
        try Data(prefix + Array(text.utf8)).write(to: dir.appendingPathComponent(name))
    }

    static func reportJSON(_ dir: URL, _ name: String) throws -> Data {
        try Data(contentsOf: dir.appendingPathComponent(name + "/" + ReportJSON.fileName))
    }

    /// A runs file with CRLF line ends (written on Windows, or converted by a CI step) gives the
    /// report its LF copy gives. It was one line ("\r\n" is one Character to Swift, so splitting
    /// on "\n" found none): 0 clips and exit 0 under --fail-on failed.
    @Test func crlfLineEndsReadAsLF() throws {
        let dir = Fixture.scratchDirectory()
        let lines = try Self.lines(in: dir)
        try Self.write(lines, to: "lf.jsonl", in: dir)
        try Self.write(lines.replacingOccurrences(of: "\n", with: "\r\n"), to: "crlf.jsonl", in: dir)
        for name in ["lf", "crlf"] {
            let run = try CLI.run(["report", name + ".jsonl", "-o", name, "--fail-on", "failed,warnings"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("2 clips · 2 ok · 0 failed"), "\(run.stdout)")
        }
        #expect(try Self.reportJSON(dir, "crlf") == Self.reportJSON(dir, "lf"))
    }

    /// A runs file that starts with a UTF-8 byte-order mark (Windows tools write one) gives the
    /// report its plain copy gives, and that report is the next run's baseline. Its first line
    /// was read (JSONSerialization skips the mark) and put in report.json as read, mark and all,
    /// so report.json was not JSON and `--baseline` refused it.
    @Test func aByteOrderMarkIsDropped() throws {
        let dir = Fixture.scratchDirectory()
        let lines = try Self.lines(in: dir)
        try Self.write(lines, to: "plain.jsonl", in: dir)
        try Self.write(lines, prefix: [0xEF, 0xBB, 0xBF], to: "marked.jsonl", in: dir)
        for name in ["plain", "marked"] {
            let run = try CLI.run(["report", name + ".jsonl", "-o", name, "--copy", "--fail-on", "failed,warnings"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let marked = try Self.reportJSON(dir, "marked")
        #expect(marked == (try Self.reportJSON(dir, "plain")))
        #expect(!marked.starts(with: [0xEF, 0xBB, 0xBF]) && JSONText.isStrict(String(decoding: marked, as: UTF8.self)))
        let next = try CLI.run(["report", "plain.jsonl", "-o", "next", "--baseline", "marked", "--fail-on", "visual"], in: dir)
        #expect(next.status == 0, "\(next.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Self.reportJSON(dir, "next")) as? [String: Any])
        #expect((json["totals"] as? [String: Any])?["changes"] as? [String: Int] == ["identical": 2])
    }

    /// A runs file without any clipkit line (empty: the CI step failed before printing; or only
    /// other text) is a note, listed in report.json's `shards.without_lines`, and trips the
    /// `failed`, `shards` and `warnings` gates, alone or beside a good file. It gave "0 clips"
    /// and exit 0 under --fail-on failed,warnings,shards: a broken pipeline showed green.
    @Test func aRunsFileWithoutClipkitLinesTripsFailedAndShards() throws {
        let dir = Fixture.scratchDirectory()
        try Self.write(try Self.lines(in: dir), to: "good.jsonl", in: dir)
        try Self.write("", to: "empty.jsonl", in: dir)
        try Self.write("Segmentation fault (core dumped)\n\n", to: "noise.jsonl", in: dir)
        let plain = try CLI.run(["report", "empty.jsonl", "-o", "r"], in: dir)
        #expect(plain.status == 0 && plain.stderr.contains("/empty.jsonl: no clipkit --json lines"), "\(plain.stderr)")
        for runs in [["empty.jsonl"], ["good.jsonl", "noise.jsonl"]] {
            for gate in ["failed", "shards", "warnings"] {
                let run = try CLI.run(["report"] + runs + ["-o", "r", "--fail-on", gate], in: dir)
                #expect(run.status == 1 && run.stderr.contains("--fail-on: "), "\(runs) \(gate): \(run.stderr)")
                if gate != "warnings" { #expect(run.stderr.contains("1 runs files without any clipkit --json line"), "\(run.stderr)") }
            }
            let json = try #require(try JSONSerialization.jsonObject(with: Self.reportJSON(dir, "r")) as? [String: Any])
            // Runs files are named by their absolute paths, as in every note.
            let file = dir.appendingPathComponent(runs.last!).path
            #expect((json["shards"] as? [String: Any])?["without_lines"] as? [String] == [file])
            #expect((json["notes"] as? [String])?.contains("\(file): no clipkit --json lines") == true)
            #expect((json["totals"] as? [String: Any])?["clips"] as? Int == (runs.count == 1 ? 0 : 2))
        }
        let html = try String(contentsOf: dir.appendingPathComponent("r/index.html"), encoding: .utf8)
        #expect(html.contains("/noise.jsonl: no clipkit --json lines</li>"))
        // Both gates at once say it once.
        let both = try CLI.run(["report", "empty.jsonl", "-o", "r", "--fail-on", "failed,shards"], in: dir)
        #expect(both.status == 1 && both.stderr.components(separatedBy: "without any clipkit --json line").count == 2, "\(both.stderr)")
        let good = try CLI.run(["report", "good.jsonl", "-o", "r", "--fail-on", "failed,shards,warnings"], in: dir)
        #expect(good.status == 0, "\(good.stderr)")
    }
}
