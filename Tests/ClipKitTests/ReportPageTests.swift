// clipkit report's page as a reviewer reads it: warned and over-budget clips marked and counted alike, sizes to read, names apart, every error, lazy images, the SSIM axis.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ReportPageTests {
    static func write(_ lines: [String], options: ReportOptions = ReportOptions(), name: String = #function) throws -> (ReportResult, String) {
        let dir = Fixture.scratchDirectory(name)
        let result = try ReportWriter(options: options).write(RunSet.merge([("run.jsonl", lines.joined(separator: "\n"))]),
                                                              to: dir.appendingPathComponent("report"))
        return (result, try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8))
    }

    static func gif(_ name: String, in dir: URL, from fixture: String = "report/base.gif") throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Fixture.url(fixture), to: url)
        return url.path
    }

    /// Clips whose lines carry warnings have a chip and a visible mark; so do over-budget clips,
    /// and the budget chip, the counts line and report.json count clips alike (the chip counted
    /// clips, the counts line outputs), a failed clip not counted "within".
    @Test func warnedAndOverBudgetClipsAreMarkedAndCountedAlike() throws {
        let dir = Fixture.scratchDirectory()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Fixture.url("report/base.gif").path)[.size] as? Int)
        let lines = [
            ReportTests.line("/clips/a.mp4", outputs: [try Self.gif("a1.gif", in: dir), try Self.gif("a2.gif", in: dir)]),
            ReportTests.line("/clips/b.mp4", outputs: [try Self.gif("b.gif", in: dir)],
                             extra: ["warnings": ["damaged video data: 1 picture decoded with errors"]]),
            ReportTests.line("/clips/c.mp4", status: "error", error: "/clips/c.mp4: no such file"),
        ]
        var options = ReportOptions()
        options.budgets = [.gif: size - 1]  // base.gif one byte over
        let (result, html) = try Self.write(lines, options: options)
        // a.mp4: two outputs over; b.mp4: one over (and warned); c.mp4 failed.
        #expect(result.document.totals.overBudget == 3 && result.document.totals.clipsOverBudget == 2)
        #expect(result.document.countsLine.contains("2 clips over budget (3 outputs)"), "\(result.document.countsLine)")
        #expect(html.contains("data-group=\"budget\" data-value=\"over\" aria-pressed=\"false\">over <span class=\"n\">2</span>"))
        #expect(!html.contains("data-value=\"within\""), "a failed clip is not within budget")
        #expect(html.contains("data-group=\"budget\" data-value=\"unchecked\" aria-pressed=\"false\">unchecked <span class=\"n\">1</span>"))
        #expect(html.contains("data-group=\"warnings\" data-value=\"warned\" aria-pressed=\"false\">warned <span class=\"n\">1</span>"))
        #expect(html.contains("<article class=\"card ok over-budget\" id=\"card-1\""))
        #expect(html.contains("<article class=\"card ok warned over-budget\" id=\"card-2\" data-status=\"ok\" data-format=\"gif\" data-warnings=\"warned\""))
        #expect(html.contains("<article class=\"card error\" id=\"card-3\" data-status=\"error\" data-format=\"\" data-warnings=\"none\" data-budget=\"unchecked\">"))
        #expect(html.contains("<span class=\"flag warned\">1 warning</span> <span class=\"flag over-budget\">1 over budget</span>"))
        #expect(html.contains("<span class=\"flag over-budget\">2 over budget</span>"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: result.directory.appendingPathComponent("report.json"))) as? [String: Any])
        #expect((json["totals"] as? [String: Any])?["clips_over_budget"] as? Int == 2)
        // No breach, no budget chip.
        options.budgets[.gif] = 1_000_000
        let (_, within) = try Self.write(lines, options: options, name: "within")
        #expect(!within.contains("data-group=\"budget\""), "no chip without a breach")
    }

    /// Budget rows and sizes read as 1.4 MB, the exact bytes in a title or beside them.
    @Test func sizesReadAsUnitsWithTheExactBytesBeside() throws {
        let dir = Fixture.scratchDirectory()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Fixture.url("report/base.gif").path)[.size] as? Int)
        var options = ReportOptions()
        options.budgets = [.gif: 1000]
        let (result, html) = try Self.write([ReportTests.line("/clips/a.mp4", outputs: [try Self.gif("a.gif", in: dir)])], options: options)
        let human = ReportPage.bytes(size)
        #expect(human.hasSuffix(" KB") && size > 1000)
        #expect(result.document.problems.map(\.text) == ["gif \(human), budget 1.0 KB (\(size) > 1000 bytes)"])
        #expect(html.contains("<td><span class=\"size\" title=\"\(size) bytes\">\(human)</span><td><span class=\"size\" title=\"1000 bytes\">1.0 KB</span> <strong class=\"over\">over</strong>"), "\(html)")
        #expect(!html.contains("<td>\(size)<"))
        let markdown = try String(contentsOf: result.directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.contains("gif \(human), budget 1.0 KB (\(size) &gt; 1000 bytes)"), "\(markdown)")
    }

    /// Two `hd_720p.mp4` in two folders: the cards show each path under the inputs' shared folder.
    @Test func cardsShowPathsUnderTheSharedFolder() throws {
        let (_, html) = try Self.write([ReportTests.line("/work/media/a/hd_720p.mp4"), ReportTests.line("/work/media/b/hd_720p.mp4"),
                                        ReportTests.line("/work/media/b/<x>.mp4")])
        #expect(html.contains("<h3><a href=\"#clip-1\">a/hd_720p.mp4</a></h3>"), "\(html)")
        #expect(html.contains("<h3><a href=\"#clip-3\">b/hd_720p.mp4</a></h3>"))
        #expect(html.contains("<h3><a href=\"#clip-2\">b/&lt;x&gt;.mp4</a></h3>"))
        // One input: its name; a relative input: as given.
        let (_, one) = try Self.write([ReportTests.line("/work/media/a/hd_720p.mp4")], name: "one")
        #expect(one.contains("<h3><a href=\"#clip-1\">hd_720p.mp4</a></h3>"))
        let (_, relative) = try Self.write([ReportTests.line("media/a/x.mp4"), ReportTests.line("media/b/x.mp4")], name: "relative")
        #expect(relative.contains(">media/a/x.mp4</a></h3>") && relative.contains(">media/b/x.mp4</a></h3>"))
    }

    /// gif, thumb and storyboard failing on one input print the same line: each is an error of
    /// the clip (they were merged as one line read twice), in one runs file or in three.
    @Test func eachFailedLineIsShown() throws {
        let failed = ReportTests.line("/clips/x.mp4", status: "error", error: "/clips/x.mp4: not a video")
        let one = RunSet.merge([("run.jsonl", [failed, failed, failed].joined(separator: "\n"))])
        #expect(one.clips.first?.lines.count == 3 && one.clips.first?.errors.count == 3)
        let three = RunSet.merge([("gif.jsonl", failed), ("thumb.jsonl", failed), ("sb.jsonl", failed)])
        #expect(three.clips.first?.errors.count == 3)
        // A file named twice is read once, and a shard's file held twice still reads once.
        #expect(RunSet.merge([("gif.jsonl", failed), ("gif.jsonl", failed)]).clips.first?.lines.count == 1)
        let sharded = ReportTests.line("/clips/x.mp4", status: "error", error: "bad", shard: "1/1")
        #expect(RunSet.merge([("a", sharded), ("b", sharded)]).clips.first?.lines.count == 1)
        let (result, html) = try Self.write([failed, failed, failed])
        // The problems table says the error once, with how many lines did.
        #expect(result.document.problems.map(\.text) == ["/clips/x.mp4: not a video (3 lines)"])
        for number in 1...3 {
            #expect(html.contains("<p class=\"error\">/clips/x.mp4: not a video <span class=\"from\">(run.jsonl:\(number))</span></p>"))
        }
    }

    /// Every picture the page shows is `loading="lazy"`, and the storyboard cues carry each
    /// sheet's size, so report.js scales the tile before loading a sheet only when near.
    @Test func picturesAreLazyAndCuesGiveSheetSizes() throws {
        let dir = Fixture.scratchDirectory()
        let board = dir.appendingPathComponent("a.storyboard")
        try FileManager.default.createDirectory(at: board, withIntermediateDirectories: true)
        let manifest = """
        {"format":"clipkit-storyboard/1","source":"a.mp4","duration_ms":2000,"interval":1.0,"keyframes":false,\
        "tile":{"width":160,"height":90},"columns":2,"tiles_per_sheet":2,"image_format":"png","vtt":"storyboard.vtt",\
        "sheets":[{"file":"sheet-1.png","width":320,"height":180,"tiles":2}],"tiles":[{"end_ms":1000,"frame_ms":0,"sheet":0,"start_ms":0,"x":0,"y":0},\
        {"end_ms":2000,"frame_ms":1000,"sheet":0,"start_ms":1000,"x":160,"y":0}]}
        """
        try Data(manifest.utf8).write(to: board.appendingPathComponent(StoryboardManifest.fileName))
        try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: board.appendingPathComponent("sheet-1.png"))
        try Data("WEBVTT\n".utf8).write(to: board.appendingPathComponent("storyboard.vtt"))
        let (result, html) = try Self.write([ReportTests.line("/clips/a.mp4", outputs: [try Self.gif("a.gif", in: dir), board.path])])
        #expect(result.document.clips.first?.storyboard != nil, "\(result.document.clips.first?.warnings ?? [])")
        #expect(html.contains("\"tile\":[160,90],\"sheets\":[[320,180]],\"tiles\":"), "\(html)")
        let images = html.components(separatedBy: "<img ").dropFirst()
        #expect(images.count >= 3)
        for image in images { #expect(image.prefix { $0 != ">" }.contains("loading=\"lazy\""), "\(image.prefix(120))") }
        // report.js loads a sheet when its scrubber is near the viewport or first pointed at.
        #expect(ReportScript.source.contains("new IntersectionObserver") && ReportScript.source.contains("'pointerenter', load"))
    }

    /// The filmstrips' pixel budget is spent in input order, and the page names the clips left
    /// without pictures: a later, smaller GIF had pictures after an earlier one had none.
    @Test func filmstripBudgetFollowsInputOrderAndIsNamed() throws {
        let dir = Fixture.scratchDirectory()
        let lines = [ReportTests.line("/clips/a.mp4", outputs: [try Self.gif("a.gif", in: dir, from: "report/filmstrip.gif")]),
                     ReportTests.line("/clips/b.mp4", outputs: [try Self.gif("b.gif", in: dir)])]
        var options = ReportOptions()
        options.filmstripPixelBudget = 160 * 40 * 20 - 1  // one pixel short of a.gif's; b.gif (64x48) would fit
        let (result, html) = try Self.write(lines, options: options)
        let strips = result.document.clips.map(\.gifFrames)
        #expect(strips.map { $0?.sheetHref } == [nil, nil] && strips.map { $0?.skippedForBudget } == [true, true])
        #expect(html.contains("2 clips have GIF frames without pictures"), "\(html)")
        #expect(html.contains("<a href=\"#clip-1\">a.mp4</a>, <a href=\"#clip-2\">b.mp4</a>"))
        #expect(html.components(separatedBy: "<p class=\"note\">No pictures: ").count - 1 == 2)
        // With room for both, both have pictures and nothing is said.
        options.filmstripPixelBudget = GIFFilmstrip.pixelBudget
        let (all, allHTML) = try Self.write(lines, options: options, name: "all")
        #expect(all.document.clips.allSatisfy { $0.gifFrames?.sheetHref != nil } && !allHTML.contains("without pictures"))
    }

    /// The SSIM curve's axis goes below its lowest value (it was fixed at 0.9: 0.6 drew as 0.9).
    @Test func ssimAxisFollowsTheData() {
        #expect(ChangeSection.axisBottom(lowest: 0.995) == 0.9 && ChangeSection.axisBottom(lowest: 0.95) == 0.9)
        #expect(ChangeSection.axisBottom(lowest: 0.6) == 0.55 && ChangeSection.axisBottom(lowest: 0.905) == 0.85)
        #expect(ChangeSection.axisBottom(lowest: -2) == -1)
        let clip = ReportClip(id: "clip-1", input: "/a.mp4", status: "ok", errors: [], lines: [], outputs: [], warnings: [])
        let change = ClipChange(kind: .visual, curve: [(0, 1), (500, 0.6), (1000, 0.98)], worstSSIM: 0.6, worstTimeMs: 500)
        let html = ChangeSection(clip: clip, change: change).html()
        #expect(html.contains("aria-label=\"per-frame SSIM, 0.55 to 1\""), "\(html)")
        // 0.6 sits just above the bottom (it was drawn at the bottom edge, as 0.9 would be).
        #expect(html.contains("points=\"0.0,0.0 300.0,106.7 600.0,5.3\""), "\(html)")
        #expect(html.contains(">0.55</text>"))
    }
}
