// clipkit report's library side: hostile names escaped in HTML and Markdown, shards merged, the summary cap, no inline script or style.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ReportTests {
    static let hostile = [
        "a\"b'c.mp4", "<script>alert(1)</script>.mp4", "pipe|name.mp4", "back`tick`.mp4", "new\nline.mp4",
        String(repeating: "n", count: 246) + ".mp4", "bad\u{FFFD}utf8.mp4", "[link](javascript:x).mp4", "<!--x-->&amp;.mp4",
        "rtl\u{202E}oo.mp4", "iso\u{2067}late\u{2069}\u{200F}\u{061C}.mp4", "c1\u{85}\u{9B}.mp4",
    ]

    /// Characters that reorder or hide text: the report shows them escaped, never as they are.
    static let spoofing = Set<UInt32>([0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C] + Array(0x80...0x9F))

    static func line(_ input: String, outputs: [String] = [], status: String = "ok", error: String? = nil, shard: String? = nil, extra: [String: Any] = [:]) -> String {
        var object: [String: Any] = ["schema": 1, "input": input, "outputs": outputs, "status": status, "seconds": 0.1]
        if let error { object["error"] = error }
        if let shard { object["shard"] = shard }
        object.merge(extra) { $1 }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// summary.md lists a clip once: one in the problems table (a warning here) is not among
    /// "Other clips" too (a review found seven there twice).
    @Test func summaryListsEachClipOnce() throws {
        let lines = [Self.line("/clips/warned.mp4", extra: ["warnings": ["damaged video data: 1 picture decoded with errors"]]),
                     Self.line("/clips/fine.mp4")]
        let dir = Fixture.scratchDirectory()
        let result = try ReportWriter().write(RunSet.merge([("run.jsonl", lines.joined(separator: "\n"))]), to: dir.appendingPathComponent("report"))
        let markdown = try String(contentsOf: result.directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.components(separatedBy: "warned.mp4").count - 1 == 1, "\(markdown)")
        #expect(markdown.contains("Other clips (1)") && markdown.contains("fine.mp4"), "\(markdown)")
    }

    @Test func hostileNamesAreEscapedInHTMLAndMarkdown() throws {
        let text = Self.hostile.map { Self.line("/clips/" + $0, status: "error", error: "/clips/\($0): no such file") }.joined(separator: "\n")
        let runs = RunSet.merge([("run.jsonl", text)])
        #expect(runs.clips.count == Self.hostile.count)
        let dir = Fixture.scratchDirectory()
        let result = try ReportWriter().write(runs, to: dir.appendingPathComponent("report"))
        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<!--x-->"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;.mp4"))
        #expect(!html.contains("a\"b'c"))
        #expect(html.contains("a&quot;b&#39;c.mp4"))
        #expect(html.contains("new&#10;line.mp4") && !html.contains("new\nline"))
        #expect(html.contains(String(repeating: "n", count: 246) + ".mp4"))
        // Bidi controls and C1 controls as visible text: "rtl\u{202E}oo.mp4" read "rtl4pm.oo".
        #expect(html.contains("rtl\\u{202E}oo.mp4") && html.contains("iso\\u{2067}late\\u{2069}\\u{200F}\\u{061C}.mp4"))
        #expect(html.contains("c1\\u{0085}\\u{009B}.mp4"))
        #expect(!html.unicodeScalars.contains { Self.spoofing.contains($0.value) })
        // The only <script> elements: report.js and JSON data blocks.
        let scripts = html.components(separatedBy: "<script").dropFirst()
        for script in scripts { #expect(script.hasPrefix(" src=\"report.js\"") || script.hasPrefix(" type=\"application/json\"")) }
        #expect(!html.contains("style=") && !html.contains("<style") && !html.lowercased().contains(" on"  + "click="))
        let markdown = try String(contentsOf: result.directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.hasPrefix("<!-- clipkit-report -->\n"))
        #expect(!markdown.contains("<script") && !markdown.contains("<!--x"))
        #expect(markdown.contains("pipe&#124;name") && !markdown.contains("pipe|name"))
        #expect(markdown.contains("back\\`tick\\`") && markdown.contains("\\[link\\]"))
        #expect(!markdown.contains("new\nline"))
        #expect(markdown.contains("rtl\\\\u\\{202E\\}oo.mp4") && !markdown.unicodeScalars.contains { Self.spoofing.contains($0.value) })
        // Every table row has exactly its three cells: no name adds a column.
        for row in markdown.split(separator: "\n") where row.hasPrefix("| /clips") {
            #expect(row.filter { $0 == "|" }.count == 4, "\(row)")
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: result.directory.appendingPathComponent("report.json"))) as? [String: Any]
        let inputs = (json?["clips"] as? [[String: Any]])?.compactMap { $0["input"] as? String } ?? []
        #expect(Set(inputs) == Set(Self.hostile.map { "/clips/" + $0 }))
    }

    @Test func escapingFunctions() {
        #expect(ReportEscaping.html("<a href='x'>&\"`\u{0}") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&#96;&#65533;")
        #expect(ReportEscaping.urlPath("../a b/#?%\"é.gif") == "../a%20b/%23%3F%25%22%C3%A9.gif")
        #expect(ReportEscaping.jsonForScript("{\"a\":\"</script><!--&\"}") == "{\"a\":\"\\u003c/script\\u003e\\u003c!--\\u0026\"}")
        #expect(ReportEscaping.safeFileName("../<x>|é.gif") == "__x___.gif")
        #expect(ReportEscaping.markdown("a|b`c*d\ne") == "a&#124;b\\`c\\*d e")
        #expect(ReportEscaping.html("a\u{202E}b\u{85}") == "a\\u{202E}b\\u{0085}")
        #expect(ReportEscaping.text("a\u{2066}b") == "a\\u{2066}b")
        #expect(ReportEscaping.markdown("a\u{200F}b") == "a\\\\u\\{200F\\}b")
        // Other characters outside ASCII stay as they are (Hebrew, an accent, an emoji joiner).
        #expect(ReportEscaping.html("\u{5D0}e\u{301}\u{1F469}\u{200D}\u{1F4BB}") == "\u{5D0}e\u{301}\u{1F469}\u{200D}\u{1F4BB}")
    }

    @Test func shardsMergeByInputAndMissingOrRepeatedShardsAreReported() {
        let one = [Self.line("/a.mp4", outputs: ["/o/a.gif"], shard: "1/3"), Self.line("/b.mp4", outputs: ["/o/b.gif"], shard: "1/3")].joined(separator: "\n")
        let three = [Self.line("/c.mp4", outputs: ["/o/c.gif"], shard: "3/3"), Self.line("/a.mp4", outputs: ["/o/a.png"], shard: "3/3")].joined(separator: "\n")
        let runs = RunSet.merge([("one.jsonl", one), ("three.jsonl", three), ("one-again.jsonl", one + "\nnot json\n")])
        #expect(runs.clips.map(\.input) == ["/a.mp4", "/b.mp4", "/c.mp4"])
        #expect(runs.clips[0].lines.map(\.outputs) == [["/o/a.gif"], ["/o/a.png"]])
        #expect(runs.clips[1].lines.count == 1)  // the repeated shard's lines read once
        #expect(runs.shardsSeen == ["1/3", "3/3"])
        #expect(runs.shardsMissing == ["2/3"])
        #expect(runs.shardsDuplicated == ["1/3"])
        #expect(runs.warnings == ["one-again.jsonl:3: not a clipkit --json line"])
        // A line longer than any clipkit writes is skipped, with a note, before it is parsed (a
        // 200 MB input name came out as a clip, after 50 s and 1.25 GB).
        let huge = Self.line("/" + String(repeating: "A", count: RunSet.maxLineBytes) + ".mp4")
        let long = RunSet.merge([("long.jsonl", [huge, Self.line("/d.mp4")].joined(separator: "\n"))])
        #expect(long.clips.map(\.input) == ["/d.mp4"])
        #expect(long.warnings == ["long.jsonl:1: a line of \(huge.utf8.count) bytes, longer than any clipkit --json line (1024 KiB at most), skipped"])
        let complete = RunSet.merge([("1", Self.line("/a", shard: "1/2")), ("2", Self.line("/b", shard: "2/2"))])
        #expect(complete.shardsMissing.isEmpty && complete.shardsDuplicated.isEmpty)
    }

    @Test func shardNotesAndLinkBaseReachThePageAndSummary() throws {
        let text = [Self.line("/a|b.mp4", shard: "1/2"), Self.line("/c.mp4", status: "error", error: "bad", shard: "1/2")].joined(separator: "\n")
        var options = ReportOptions()
        options.linkBase = "https://ci.example/run 1/(x)<y>/"
        let result = try ReportWriter(options: options).write(RunSet.merge([("r", text)]), to: Fixture.scratchDirectory().appendingPathComponent("r"))
        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<li>shard 2/2 missing</li>"))
        let markdown = try String(contentsOf: result.directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.contains("- shard 2/2 missing"))
        #expect(markdown.contains("[/c.mp4](https://ci.example/run%201/%28x%29%3Cy%3E/index.html#clip-2)"), "\(markdown)")
        #expect(markdown.contains("[/a&#124;b.mp4](https://ci.example/run%201/%28x%29%3Cy%3E/index.html#clip-1)"))
        #expect(!markdown.contains("data:"))
    }

    /// report.json holds each line as read only when it is JSON by RFC 8259. JSONSerialization
    /// also reads a comma before `}` and skips a byte-order mark; such a line went into
    /// report.json as read, and report.json was no longer JSON.
    @Test func reportJSONStaysJSONWhateverTheLinesAre() throws {
        let lenient = "{\"input\":\"/b.mp4\",\"outputs\":[\"/o/b.gif\",],\"status\":\"error\",\"error\":\"bad\",}"
        let text = "\u{FEFF}" + Self.line("/a.mp4") + "\n" + lenient + "\n\u{FEFF}" + Self.line("/c.mp4") + "\n"
        let runs = RunSet.merge([("r", text)])
        #expect(runs.clips.map(\.input) == ["/a.mp4", "/b.mp4", "/c.mp4"] && runs.warnings.isEmpty)
        let result = try ReportWriter().write(runs, to: Fixture.scratchDirectory().appendingPathComponent("r"))
        let json = try String(contentsOf: result.directory.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(JSONText.isStrict(json) && !json.contains("\u{FEFF}"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let lines = (object["clips"] as? [[String: Any]])?.map { $0["lines"] as? [[String: Any]] ?? [] }
        #expect(lines?.map { $0.compactMap { $0["input"] as? String } } == [["/a.mp4"], ["/b.mp4"], ["/c.mp4"]])
        #expect(lines?[1].first?["outputs"] as? [String] == ["/o/b.gif"])
        // A line clipkit wrote is kept byte for byte.
        #expect(json.contains(Self.line("/a.mp4")))
    }

    @Test func strictJSONGrammar() {
        for valid in ["{}", " [1, -0.5e+3, \"a\\u00e9\\n\", true, false, null, {\"k\": []}] ", "0", "\"\u{202E}\""] {
            #expect(JSONText.isStrict(valid), "\(valid)")
        }
        for invalid in ["", "{\"a\":1,}", "[1,]", "\u{FEFF}{}", "{} x", "01", "1.", ".5", "+1", "-", "1e", "NaN", "{'a':1}", "\"a\tb\"",
                        "\"\\x\"", "\"\\u12\"", "tru", "{\"a\" 1}", "[1 2]", "{\"a\":1}\u{0}", String(repeating: "[", count: 600) + String(repeating: "]", count: 600)] {
            #expect(!JSONText.isStrict(invalid), "\(invalid.debugDescription)")
        }
    }

    @Test func unknownFieldsAreKeptAndShown() throws {
        let runs = RunSet.merge([("r", Self.line("/a.mp4", extra: ["ssimulacra2": 87.25, "future": ["x": 1]]))])
        #expect(runs.clips[0].lines[0].number("ssimulacra2") == 87.25)
        #expect(runs.clips[0].lines[0].text("future") == "{\"x\":1}")
    }

    @Test func summaryIsCappedWith5000Clips() throws {
        let text = (0..<5000).map { Self.line("/clips/clip-\($0)|x.mp4", status: $0 % 2 == 0 ? "error" : "ok", error: $0 % 2 == 0 ? "failed \($0)" : nil) }
            .joined(separator: "\n")
        let runs = RunSet.merge([("r", text)])
        var options = ReportOptions()
        options.markdownMax = 20_000
        let dir = Fixture.scratchDirectory()
        let result = try ReportWriter(options: options).write(runs, to: dir.appendingPathComponent("report"))
        let markdown = try Data(contentsOf: result.directory.appendingPathComponent("summary.md"))
        #expect(markdown.count <= 20_000)
        let text2 = String(decoding: markdown, as: UTF8.self)
        let more = text2.split(separator: "\n").last { $0.hasSuffix("more in the report.") }
        let shown = text2.split(separator: "\n").filter { $0.hasPrefix("| /clips") }.count
        #expect(more.map { Int($0.split(separator: " ")[0]) } == 5000 - shown)
        // The default cap (1,000,000 bytes) holds all 5,000.
        let full = try ReportWriter().write(runs, to: dir.appendingPathComponent("full"))
        let fullText = try String(contentsOf: full.directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(fullText.split(separator: "\n").filter { $0.hasPrefix("| /clips") }.count == 5000)
        #expect(!fullText.contains("more in the report"))
    }

    @Test func aBudgetBreachIsOneProblemAndNoWarning() throws {
        let dir = Fixture.scratchDirectory()
        let gif = dir.appendingPathComponent("a.gif"), other = dir.appendingPathComponent("b.gif")
        try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: gif)
        try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: other)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: gif.path)[.size] as? Int)
        let text = [Self.line("/clips/a.mp4", outputs: [gif.path]), Self.line("/clips/b.mp4", outputs: [other.path, dir.appendingPathComponent("gone.gif").path])]
            .joined(separator: "\n")
        var options = ReportOptions()
        options.budgets = [.gif: size - 1]
        options.failOn = [.warnings, .budget]
        let result = try ReportWriter(options: options).write(RunSet.merge([("r", text)]), to: dir.appendingPathComponent("report"))
        let totals = result.document.totals
        #expect(totals.overBudget == 2)
        // The one warning is the missing output; the breaches are not warnings too.
        #expect(totals.warnings == 1)
        #expect(result.document.problems.map(\.kind) == ["budget", "budget", "warning"])
        let breach = "gif \(ReportPage.bytes(size)), budget \(ReportPage.bytes(size - 1)) (\(size) > \(size - 1) bytes)"
        #expect(result.document.problems.filter { $0.kind == "budget" }.map(\.text) == [breach, breach])
        #expect(result.gateFailures == ["2 outputs over budget", "1 warnings"])
        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.components(separatedBy: "<tr class=\"budget\">").count - 1 == 2)
        #expect(html.contains("<h2>Problems (3)</h2>"))
        #expect(!html.contains("over budget:"))
        let markdown = try String(contentsOf: result.directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.components(separatedBy: "| budget |").count - 1 == 2)
        #expect(markdown.components(separatedBy: "| warning |").count - 1 == 1)
        // Within budget: no problem at all.
        options.budgets = [.gif: size]
        let within = try ReportWriter(options: options).write(RunSet.merge([("r", text)]), to: dir.appendingPathComponent("report"))
        #expect(within.document.totals.overBudget == 0 && within.document.problems.map(\.kind) == ["warning"])
    }

    /// What a command printed as `clipkit: warning:` (damage, a file cut short) comes in its
    /// --json line's `warnings`: each is the clip's warning once, however many commands said it,
    /// and counts for the `warnings` gate.
    @Test func theInputsOwnWarningsAreTheClipsWarnings() throws {
        let dir = Fixture.scratchDirectory()
        let note = "the frames end at 1.120s, short of the 2.000s the header states: the file may be cut short"
        let text = [Self.line("/clips/a.mkv", extra: ["warnings": [note]]), Self.line("/clips/a.mkv", extra: ["warnings": [note]]),
                    Self.line("/clips/b.mkv", extra: ["warnings": []])].joined(separator: "\n")
        var options = ReportOptions()
        options.failOn = [.warnings]
        let result = try ReportWriter(options: options).write(RunSet.merge([("r", text)]), to: dir.appendingPathComponent("report"))
        #expect(result.document.clips.map(\.warnings) == [[note], []])
        #expect(result.document.totals.warnings == 1 && result.gateFailures == ["1 warnings"])
        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("short of the 2.000s the header states"))
        // A line without warnings shows no `warnings` field, as a null field is not shown.
        let clean = try #require(result.document.clips.last?.lines.first)
        #expect(!clean.shown.contains("warnings") && clean.text("warnings") == nil && clean.warnings.isEmpty, "\(clean.shown)")
    }

    @Test func budgetsAndGates() throws {
        #expect(try ReportOptions.budgets("gif=2000,webp=500") { Int($0)! } == [.gif: 2000, .webp: 500])
        #expect(throws: ClipKitError.self) { try ReportOptions.budgets("png=1") { Int($0)! } }
        #expect(try ReportOptions.gates("failed,budget") == [.failed, .budget])
        #expect(throws: ClipKitError.self) { try ReportOptions.gates("nope") }
    }
}
