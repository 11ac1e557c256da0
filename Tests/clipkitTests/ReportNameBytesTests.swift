// clipkit report over the --json lines of a clip whose name is not UTF-8: its outputs are found, linked and copied by their bytes.
import ClipKit
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ReportNameBytesTests {
    /// gif and thumb on a non-UTF-8 name, then a report in the same tree (outputs linked) and one
    /// with --copy (outputs copied under ASCII names): no output is "missing", links decode to
    /// the real bytes, the page names the clip with `\xFF` escapes.
    @Test(arguments: [false, true]) func outputsOfANonUTF8NameAreFound(_ copy: Bool) throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let name = FileNameBytesTests.oddStem + Array(".mp4".utf8)
        try scratch.copy(Fixture.url("video/counter.mp4"), to: name)
        var lines = Data()
        for command in ["gif", "thumb"] {
            let run = try RawRun.clipkit([Array(command.utf8), name, Array("--json".utf8)], in: scratch)
            #expect(run.status == 0, "\(run)")
            lines += run.stdout
        }
        try lines.write(to: scratch.url.appendingPathComponent("run.jsonl"))
        let report = try RawRun.clipkit([Array("report".utf8), Array("run.jsonl".utf8), Array("-o".utf8), Array("rep".utf8)]
                                        + (copy ? [Array("--copy".utf8)] : []), in: scratch)
        #expect(report.status == 0, "\(report)")

        let directory = scratch.url.appendingPathComponent("rep")
        let page = try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8)
        let summary = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(!page.contains("output missing") && !summary.contains("output missing"), "an output was not found")
        #expect(page.contains("clip\\xFF\\xFE"), "the page does not name the clip with escapes")
        #expect(!page.unicodeScalars.contains { (0xEF80...0xEFFF).contains($0.value) }, "the page shows the internal escape characters")

        // Every link to a GIF or PNG resolves, by its percent-decoded bytes, to a file whose
        // content is the output's.
        let hrefs = page.components(separatedBy: "href=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
            .filter { $0.hasSuffix(".gif") || $0.hasSuffix(".png") }
        #expect(hrefs.count >= 2, "\(hrefs)")
        let gif = try #require(scratch.read(FileNameBytesTests.oddStem + Array(".gif".utf8)))
        let png = try #require(scratch.read(FileNameBytesTests.oddStem + Array(".png".utf8)))
        for href in hrefs {
            let relative = Array("rep/".utf8) + Self.percentDecoded(href)
            let linked = try #require(scratch.read(relative), "\(href) names no file")
            #expect(linked == (href.hasSuffix(".gif") ? gif : png), "\(href)")
            #expect(copy == href.hasPrefix("media/"), "\(href)")
            if copy { #expect(href.allSatisfy { $0.isASCII }, "\(href)") } else { #expect(href.contains("%FF%FE"), "\(href)") }
        }
    }

    /// `caf\u{E9}.mp4` (NFC) and `cafe\u{301}.mp4` (NFD), two files with different pictures:
    /// two clips, each with its own GIF and poster, and a baseline of that report finds both
    /// identical. Swift's String `==` is canonical equivalence, so the report keyed by name
    /// merged them: 1 clip, and one GIF and poster gone.
    @Test func canonicallyEquivalentNamesAreTwoClips() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let composed = Array("caf\u{E9}".utf8), decomposed = Array("cafe\u{301}".utf8)
        try scratch.copy(Fixture.url("video/counter.mp4"), to: composed + Array(".mp4".utf8))
        try scratch.copy(Fixture.url("video/motion.mp4"), to: decomposed + Array(".mp4".utf8))
        var lines = Data()
        for command in ["gif", "thumb"] {
            let run = try RawRun.clipkit([Array(command.utf8), composed + Array(".mp4".utf8), decomposed + Array(".mp4".utf8), Array("--json".utf8)],
                                         in: scratch)
            #expect(run.status == 0, "\(run)")
            lines += run.stdout
        }
        try lines.write(to: scratch.url.appendingPathComponent("run.jsonl"))
        let report = try RawRun.clipkit(["report", "run.jsonl", "-o", "rep", "--copy", "--fail-on", "warnings"].map { Array($0.utf8) }, in: scratch)
        #expect(report.status == 0, "\(report)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.url.appendingPathComponent("rep/report.json"))) as? [String: Any])
        let clips = try #require(json["clips"] as? [[String: Any]])
        // Inputs are absolute paths: their file names, by bytes.
        let names = try clips.map { Array(try #require($0["input"] as? String).utf8.split(separator: 0x2F).last ?? []) }
        #expect(Set(names) == [composed + Array(".mp4".utf8), decomposed + Array(".mp4".utf8)], "\(names.map(Scratch.shown))")
        for (clip, name) in zip(clips, names) {
            let stem = Array(name.dropLast(4))
            let outputs = try #require(clip["outputs"] as? [[String: Any]])
            #expect(outputs.compactMap { $0["kind"] as? String }.sorted() == ["gif", "poster"], "\(Scratch.shown(stem))")
            // Each copy holds this clip's own GIF and poster, not the other name's.
            for output in outputs {
                let kind = try #require(output["kind"] as? String), href = try #require(output["href"] as? String)
                let written = scratch.read(stem + Array((kind == "gif" ? ".gif" : ".png").utf8))
                #expect(written != nil && scratch.read(Array("rep/".utf8) + Self.percentDecoded(href)) == written, "\(Scratch.shown(stem)) \(kind)")
            }
        }
        let next = try RawRun.clipkit(["report", "run.jsonl", "-o", "next", "--baseline", "rep"].map { Array($0.utf8) }, in: scratch)
        #expect(next.status == 0, "\(next)")
        let after = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.url.appendingPathComponent("next/report.json"))) as? [String: Any])
        #expect((after["totals"] as? [String: Any])?["changes"] as? [String: Int] == ["identical": 2])
        #expect((after["removed"] as? [String]) == [])

        // A file the report did not write, canonically equivalent to one its report.json lists
        // (KELVIN SIGN is K), is a stranger: the report is not replaced over it.
        let rep = scratch.url.appendingPathComponent("rep")
        var owned = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: rep.appendingPathComponent("report.json"))) as? [String: Any])
        owned["files"] = ((owned["files"] as? [String]) ?? []) + ["media/K.txt"]
        try JSONSerialization.data(withJSONObject: owned).write(to: rep.appendingPathComponent("report.json"))
        try Data("not the report's".utf8).write(to: rep.appendingPathComponent("media/\u{212A}.txt"))
        let refused = try RawRun.clipkit(["report", "run.jsonl", "-o", "rep"].map { Array($0.utf8) }, in: scratch)
        #expect(refused.status == 1 && String(decoding: refused.stderr, as: UTF8.self).contains("media/\u{212A}.txt"), "\(refused)")
        #expect(FileManager.default.fileExists(atPath: rep.appendingPathComponent("media/\u{212A}.txt").path))
    }

    /// `rtl\u{202E}oo.mp4` (RIGHT-TO-LEFT OVERRIDE) displayed as `rtl4pm.oo`: the page and
    /// summary.md show `rtl\u{202E}oo.mp4` as text, with no override anywhere in them, and every
    /// link still opens the real file. It was written as it is.
    @Test func bidiControlsInANameAreShownEscapedAndLinkedByBytes() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let stem = Array("rtl\u{202E}oo".utf8)
        try scratch.copy(Fixture.url("video/counter.mp4"), to: stem + Array(".mp4".utf8))
        var lines = Data()
        for command in ["gif", "thumb"] {
            let run = try RawRun.clipkit([Array(command.utf8), stem + Array(".mp4".utf8), Array("--json".utf8)], in: scratch)
            #expect(run.status == 0, "\(run)")
            lines += run.stdout
        }
        try lines.write(to: scratch.url.appendingPathComponent("run.jsonl"))
        let report = try RawRun.clipkit(["report", "run.jsonl", "-o", "rep", "--fail-on", "warnings"].map { Array($0.utf8) }, in: scratch)
        #expect(report.status == 0, "\(report)")
        let directory = scratch.url.appendingPathComponent("rep")
        let page = try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8)
        let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(page.contains("rtl\\u{202E}oo.mp4") && summary.contains("rtl\\\\u\\{202E\\}oo.mp4"), "\(summary)")
        #expect(!page.unicodeScalars.contains("\u{202E}") && !summary.unicodeScalars.contains("\u{202E}"))
        let hrefs = page.components(separatedBy: "href=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
            .filter { $0.hasSuffix(".gif") || $0.hasSuffix(".png") }
        #expect(hrefs.count >= 2, "\(hrefs)")
        for href in hrefs {
            let linked = scratch.read(Array("rep/".utf8) + Self.percentDecoded(href))
            #expect(linked != nil && linked == scratch.read(stem + Array((href.hasSuffix(".gif") ? ".gif" : ".png").utf8)), "\(href)")
        }
        // report.json keeps the name itself: it is data, not display.
        let json = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(json.contains("rtl\u{202E}oo.mp4"))
    }

    static func percentDecoded(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [], utf8 = Array(text.utf8), index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let byte = UInt8(String(decoding: utf8[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }
}
