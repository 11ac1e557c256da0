// `clipkit report` over real runs of every command: the files, relative existing links, no inline code, determinism, gates, replacing only its own.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ReportCommandTests {
    /// gif, thumb, storyboard, explode and info --json over two clips (and one missing input), into `dir/out`.
    /// Clips are sorted by input path, so the missing input sits beside the fixtures (sorting first
    /// wherever the checkout is): error, counter.mp4, motion.mp4.
    static func runs(in dir: URL) throws -> URL {
        let counter = Fixture.url("video/counter.mp4").path, motion = Fixture.url("video/motion.mp4").path
        let missing = Fixture.url("video/0-no-such-clip.mp4").path
        var lines = ""
        for arguments in [["gif", counter, motion, "-o", "out/gifs/", "--width", "160"], ["thumb", counter, motion, "-o", "out/posters/"],
                          ["storyboard", counter, "-o", "out/boards/", "--format", "png"], ["explode", counter, "-o", "out/frames/", "--fps", "2"],
                          ["info", counter, motion], ["gif", missing, "-o", "out/gifs/"]] {
            let run = try CLI.run(arguments + ["--json"], in: dir)
            lines += run.stdout
        }
        let url = dir.appendingPathComponent("run.jsonl")
        try lines.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func links(in html: String) -> [String] {
        var links: [String] = []
        for attribute in ["href=\"", "src=\"", "srcset=\"", "data-anim=\"", "data-poster=\"", "poster=\""] {
            for piece in html.components(separatedBy: " " + attribute).dropFirst() {
                links.append(String(piece.prefix { $0 != "\"" }))
            }
        }
        return links
    }

    @Test func reportOfRealRunsLinksOnlyExistingRelativeFiles() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        let run = try CLI.run(["report", runs.path, "-o", "out/report"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("3 clips · 2 ok · 1 failed"))
        let report = dir.appendingPathComponent("out/report")
        // media/ holds only the filmstrip sheet of motion.mp4's GIF (counter.mp4's frames are explode's).
        #expect(CLI.files(in: report) == ["index.html", "media", "media/clip-3-frames.png", "report.css", "report.js", "report.json", "report.svg", "summary.md"])
        #expect(CLI.files(in: dir.appendingPathComponent("out")).allSatisfy { !$0.contains(".clipkit-") })
        let html = try String(contentsOf: report.appendingPathComponent("index.html"), encoding: .utf8)
        let links = Self.links(in: html)
        #expect(links.count > 20)
        for link in links where !link.hasPrefix("#") {
            #expect(!link.contains(":") && !link.hasPrefix("/"), "\(link)")
            let path = report.appendingPathComponent(link.removingPercentEncoding ?? link).standardizedFileURL.path
            #expect(FileManager.default.fileExists(atPath: path), "\(link)")
        }
        // Anchors point at sections that exist.
        for link in links where link.hasPrefix("#clip-") { #expect(html.contains("id=\"\(link.dropFirst())\"")) }
        #expect(!html.contains("style=") && !html.contains("<style"))
        #expect(html.contains("<div class=\"scrubber\">") && html.contains("</div>\n<script type=\"application/json\" class=\"cues\">"))
        #expect(html.contains("class=\"scrubber\"") && html.contains("class=\"filmstrip\""))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report.appendingPathComponent("report.json"))) as? [String: Any])
        #expect(json["format"] as? String == "clipkit-report/1")
        #expect(json["files"] as? [String] == ["index.html", "media/clip-3-frames.png", "report.css", "report.js", "report.json", "report.svg", "summary.md"])
        let clips = try #require(json["clips"] as? [[String: Any]])
        #expect(clips.map { $0["status"] as? String } == ["error", "ok", "ok"])
        let kinds = (clips[1]["outputs"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds.map(Set.init) == ["gif", "poster", "storyboard", "frames"])
    }

    @Test func sameInputsGiveByteIdenticalReportsAndCopyMakesItSelfContained() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        #expect(try CLI.run(["report", runs.path, "-o", "a", "--copy"], in: dir).status == 0)
        #expect(try CLI.run(["report", runs.path, "-o", "b", "--copy"], in: dir).status == 0)
        let files = CLI.files(in: dir.appendingPathComponent("a"))
        #expect(files == CLI.files(in: dir.appendingPathComponent("b")))
        #expect(files.contains("media") && files.contains { $0.hasPrefix("media/") && $0.hasSuffix(".gif") })
        for file in files {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: dir.appendingPathComponent("a/" + file).path, isDirectory: &isDirectory)
            if isDirectory.boolValue { continue }
            #expect(try Data(contentsOf: dir.appendingPathComponent("a/" + file)) == Data(contentsOf: dir.appendingPathComponent("b/" + file)), "\(file)")
        }
        let html = try String(contentsOf: dir.appendingPathComponent("a/index.html"), encoding: .utf8)
        #expect(Self.links(in: html).allSatisfy { $0.hasPrefix("#") || $0.hasPrefix("media/") || $0.hasPrefix("report.") })
    }

    /// A line naming a file clipkit does not write (`"outputs":["/etc/passwd"]` in a crafted or
    /// edited JSON line) is not copied into the published folder, with `--copy` or from outside
    /// the report's parent; the report says so. (It was copied to media/1-2-passwd.)
    @Test func onlyClipkitOutputsAreCopied() throws {
        let dir = Fixture.scratchDirectory()
        let elsewhere = Fixture.scratchDirectory("onlyClipkitOutputsAreCopied-elsewhere")
        let secret = elsewhere.appendingPathComponent("secret.txt")
        try Data("do not publish".utf8).write(to: secret)
        // Named like an output and not one: a link to a secret (`shadow.gif` -> /etc/shadow was
        // copied into media/, readable to all), and a file named .gif holding text.
        #expect(symlink(secret.path, dir.appendingPathComponent("shadow.gif").path) == 0)
        try Data("a secret of some length".utf8).write(to: elsewhere.appendingPathComponent("other.gif"))
        let run = try CLI.run(["gif", Fixture.url("video/counter.mp4").path, "-o", "a.gif", "--width", "80", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        var line = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        line["outputs"] = ((line["outputs"] as? [String]) ?? []) + [secret.path, dir.appendingPathComponent("shadow.gif").path,
                                                                      elsewhere.appendingPathComponent("other.gif").path]
        // The same output named by another clip's line too: copied once.
        var again = line
        again["input"] = Fixture.url("video/motion.mp4").path
        again["outputs"] = [dir.appendingPathComponent("a.gif").path]
        let lines = try [line, again].map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        try (lines.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("run.jsonl"), atomically: true, encoding: .utf8)
        for extra in [["--copy"], []] {
            let name = "r\(extra.count)"
            let report = try CLI.run(["report", "run.jsonl", "-o", name] + extra, in: dir)
            #expect(report.status == 0, "\(report.stderr)")
            let files = CLI.files(in: dir.appendingPathComponent(name))
            #expect(!files.contains { $0.contains("secret") || $0.contains("shadow") || $0.contains("other") }, "\(files)")
            #expect(files.filter { $0.hasPrefix("media/") && $0.hasSuffix(".gif") }.count == (extra.isEmpty ? 0 : 1), "\(files)")
            let json = try String(contentsOf: dir.appendingPathComponent(name + "/report.json"), encoding: .utf8)
            #expect(json.contains("not copied") && json.contains("is not the picture or video its name says, so it is not copied"))
            let page = try String(contentsOf: dir.appendingPathComponent(name + "/index.html"), encoding: .utf8)
            for link in Self.links(in: page) where !link.hasPrefix("#") && !link.hasPrefix("data:") && !link.contains("://") {
                let target = URL(fileURLWithPath: link.removingPercentEncoding ?? link, relativeTo: dir.appendingPathComponent(name + "/")).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(link)")
            }
        }
    }

    @Test func gatesExitOneAfterWriting() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        let failed = try CLI.run(["report", runs.path, "-o", "r", "--fail-on", "failed"], in: dir)
        #expect(failed.status == 1 && failed.stderr.contains("--fail-on: 1 inputs failed"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("r/index.html").path))
        let budget = try CLI.run(["report", runs.path, "-o", "r", "--budget", "gif=1KB", "--fail-on", "budget"], in: dir)
        #expect(budget.status == 1 && budget.stderr.contains("over budget"), "\(budget.stderr)")
        let summary = try String(contentsOf: dir.appendingPathComponent("r/summary.md"), encoding: .utf8)
        #expect(summary.contains("| budget |"))
        #expect(try CLI.run(["report", runs.path, "-o", "r", "--budget", "gif=1KB"], in: dir).status == 0)
        let usage = try CLI.run(["report", runs.path, "-o", "r", "--budget", "png=1KB"], in: dir)
        #expect(usage.status == 2 && usage.stderr.contains("--budget"))
    }

    @Test func replacesOnlyAReportItWrote() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        let mine = dir.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try "keep".write(to: mine.appendingPathComponent("todo.txt"), atomically: true, encoding: .utf8)
        let refused = try CLI.run(["report", runs.path, "-o", "notes"], in: dir)
        #expect(refused.status == 1 && refused.stderrLines.count == 1 && refused.stderr.contains("notes"))
        #expect(CLI.files(in: mine) == ["todo.txt"])
        #expect(try CLI.run(["report", runs.path, "-o", "r", "--copy"], in: dir).status == 0)
        try "x".write(to: dir.appendingPathComponent("r/media/extra.txt"), atomically: true, encoding: .utf8)
        let stranger = try CLI.run(["report", runs.path, "-o", "r"], in: dir)
        #expect(stranger.status == 1 && stranger.stderr.contains("media/extra.txt"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("r/media/extra.txt"))
        #expect(try CLI.run(["report", runs.path, "-o", "r"], in: dir).status == 0)
        #expect(CLI.files(in: dir.appendingPathComponent("r")).filter { $0.hasPrefix("media/") } == ["media/clip-3-frames.png"])
        #expect(CLI.files(in: dir).allSatisfy { !$0.contains(".clipkit-") })
    }

    /// `--single-file` replaces only a page clipkit report wrote: a `page.html` of the user's own
    /// is refused before anything is written (it was overwritten), and a rerun replaces its own.
    @Test func singleFileReplacesOnlyAPageItWrote() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        let page = dir.appendingPathComponent("page.html")
        try Data("<html>mine</html>\n".utf8).write(to: page)
        let refused = try CLI.run(["report", runs.path, "-o", "r", "--single-file", "page.html"], in: dir)
        #expect(refused.status == 1 && refused.stderr.contains("page.html: cannot write output: exists and was not written by clipkit report"), "\(refused.stderr)")
        #expect(try String(contentsOf: page, encoding: .utf8) == "<html>mine</html>\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r").path), "nothing written")
        try FileManager.default.removeItem(at: page)
        for _ in 0..<2 {
            #expect(try CLI.run(["report", runs.path, "-o", "r", "--single-file", "page.html"], in: dir).status == 0)
        }
        #expect(try String(contentsOf: page, encoding: .utf8).contains(ReportPage.generatorMark))
        // A link to nothing is refused too: the page would be made wherever it points.
        #expect(symlink("elsewhere/page.html", dir.appendingPathComponent("linked.html").path) == 0)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("elsewhere"), withIntermediateDirectories: true)
        let dangling = try CLI.run(["report", runs.path, "-o", "r2", "--single-file", "linked.html"], in: dir)
        #expect(dangling.status == 1 && dangling.stderr.contains("linked.html: cannot write output: is a symbolic link to \(dir.appendingPathComponent("elsewhere/page.html").path), which does not exist"),
                "\(dangling.stderr)")
        #expect(CLI.files(in: dir.appendingPathComponent("elsewhere")).isEmpty)
    }

    @Test func singleFileInlinesMediaUnderTheCapAndOnlyPostersBeyondIt() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        #expect(try CLI.run(["report", runs.path, "-o", "r", "--single-file", "one.html"], in: dir).status == 0)
        let one = try String(contentsOf: dir.appendingPathComponent("one.html"), encoding: .utf8)
        #expect(one.contains("<style>") && one.contains("<script>\n// clipkit report"))
        #expect(one.contains("src=\"data:image/gif;base64,R0lGOD"))  // the GIF's own bytes
        let files = Self.links(in: one).filter { !$0.hasPrefix("#") && !$0.hasPrefix("data:") }
        // Nothing is left outside: the storyboard and frames directories are linked by their
        // manifests (storyboard.vtt, frames.json), which are inlined too.
        #expect(files.isEmpty, "\(files)")
        #expect(try CLI.run(["report", runs.path, "-o", "r", "--single-file", "small.html", "--max-inline", "10KB"], in: dir).status == 0)
        let small = try String(contentsOf: dir.appendingPathComponent("small.html"), encoding: .utf8)
        #expect(!small.contains("data:image/gif"))
        // What stays a link is linked from where the page is (it was relative to the report
        // directory: opened where it was written, every GIF beyond the cap was broken).
        let left = Self.links(in: small).filter { !$0.hasPrefix("#") && !$0.hasPrefix("data:") }
        #expect(!left.isEmpty)
        for link in left {
            let path = dir.appendingPathComponent(link.removingPercentEncoding ?? link).standardizedFileURL.path
            #expect(FileManager.default.fileExists(atPath: path), "\(link)")
        }
        // Posters first, and only while they fit: all that is inlined stays within the cap (the
        // posters-only fallback read every poster whole, whatever its size: a 3 GB one took 15 GB).
        #expect(small.components(separatedBy: "<img class=\"poster\" src=\"data:image/png;base64,").count >= 2)
        let inlined = small.components(separatedBy: "\"data:").dropFirst().map { $0.prefix { $0 != "\"" }.utf8.count }
        #expect(inlined.reduce(0, +) <= 10 * 1024, "\(inlined)")
        #expect(CLI.files(in: dir).allSatisfy { !$0.contains(".clipkit-") })
    }

    /// Each inlined file's bytes are in the page once: a GIF was written three times (the card's
    /// `data-anim`, the section's image, the table's link) and a poster five, so a run with 3 MB
    /// of media made a 13 MB page. Every other place naming it gets it from the page's script.
    @Test func singleFileHoldsEachFilesBytesOnce() throws {
        let dir = Fixture.scratchDirectory()
        let runs = try Self.runs(in: dir)
        #expect(try CLI.run(["report", runs.path, "-o", "r", "--single-file", "one.html"], in: dir).status == 0)
        let one = try String(contentsOf: dir.appendingPathComponent("one.html"), encoding: .utf8)
        let gifs = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out/gifs").path).filter { $0.hasSuffix(".gif") }
        #expect(gifs.count == 2)
        for name in gifs {
            let base64 = try Data(contentsOf: dir.appendingPathComponent("out/gifs/" + name)).base64EncodedString()
            #expect(one.components(separatedBy: base64).count - 1 == 1, "\(name)")
        }
        let poster = try Data(contentsOf: dir.appendingPathComponent("out/posters/counter.png")).base64EncodedString()
        #expect(one.components(separatedBy: poster).count - 1 == 1)
        // As many data: URLs as files, and every place sharing one names a file the page holds.
        let held = Set(one.components(separatedBy: " data-media=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) })
        let block = one.components(separatedBy: "<script type=\"application/json\" id=\"clipkit-media\">").dropFirst().first
            .map { String($0.prefix { $0 != "<" }) } ?? "{}"
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: String])
        #expect(one.components(separatedBy: "\"data:").count - 1 == held.count + listed.count)
        #expect(Set(listed.keys).isDisjoint(with: held) && listed.keys.contains { $0.hasSuffix("storyboard.vtt") })
        var shared = 0
        for attribute in InlineMedia.attributes {
            for piece in one.components(separatedBy: " data-inline-\(attribute)=\"").dropFirst() {
                let reference = String(piece.prefix { $0 != "\"" })
                #expect(held.contains(reference) || listed[reference] != nil, "\(attribute) \(reference)")
                shared += 1
            }
        }
        #expect(shared >= 6)
    }
}
