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
