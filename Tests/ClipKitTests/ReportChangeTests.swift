// clipkit report --baseline: each change class on GIFs made for it (Fixtures/report), and the worst pair written for visual changes.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ReportChangeTests {
    /// A baseline report over base.gif for every variant's input, plus one input only it has.
    static func classify(_ variants: [String]) throws -> (ReportResult, URL) {
        let dir = Fixture.scratchDirectory()
        let runs = dir.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        var base: [String] = [], now: [String] = []
        for name in variants {
            let before = runs.appendingPathComponent("\(name)-before.gif"), after = runs.appendingPathComponent("\(name)-after.gif")
            try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: before)
            try FileManager.default.copyItem(at: Fixture.url("report/\(name).gif"), to: after)
            base.append(ReportTests.line("/clips/\(name).mp4", outputs: [before.path], extra: ["duration_ms": 400]))
            now.append(ReportTests.line("/clips/\(name).mp4", outputs: [after.path], extra: ["duration_ms": 400]))
        }
        let gone = runs.appendingPathComponent("gone.gif")
        try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: gone)
        base.append(ReportTests.line("/clips/gone.mp4", outputs: [gone.path]))
        now.append(ReportTests.line("/clips/new.mp4", outputs: [runs.appendingPathComponent("base-after.gif").path]))
        var options = ReportOptions()
        options.copyMedia = true
        _ = try ReportWriter(options: options).write(RunSet.merge([("base", base.joined(separator: "\n"))]), to: dir.appendingPathComponent("base"))
        // The baseline is read from its own copies, as a downloaded artifact would be.
        for name in variants { try FileManager.default.removeItem(at: runs.appendingPathComponent("\(name)-before.gif")) }
        options.copyMedia = false
        options.baseline = dir.appendingPathComponent("base")
        options.failOn = [.visual]
        let result = try ReportWriter(options: options).write(RunSet.merge([("now", now.joined(separator: "\n"))]), to: dir.appendingPathComponent("report"))
        return (result, dir)
    }

    @Test func eachChangeClass() throws {
        let (result, _) = try Self.classify(["base", "same", "retimed", "reencoded", "changed"])
        let classes = Dictionary(uniqueKeysWithValues: result.document.clips.map { ($0.input, $0.change?.kind) })
        #expect(classes["/clips/base.mp4"] == .identical)
        #expect(classes["/clips/same.mp4"] == .identical)
        #expect(classes["/clips/retimed.mp4"] == .timingOnly)
        #expect(classes["/clips/reencoded.mp4"] == .reencoded)
        #expect(classes["/clips/changed.mp4"] == .visual)
        #expect(classes["/clips/new.mp4"] == .new)
        #expect(result.document.removed == ["/clips/gone.mp4"])
        #expect(result.gateFailures == ["1 clips changed visually"])

        let changed = try #require(result.document.clips.first { $0.input == "/clips/changed.mp4" }?.change)
        // Frame 3 (200-300 ms) is the one changed: the curve dips there and only there.
        #expect(changed.curve.map(\.0) == [0, 100, 200, 300])
        #expect(changed.curve[0].1 == 1 && changed.curve[1].1 == 1 && changed.curve[3].1 == 1 && changed.curve[2].1 < 0.9)
        #expect(changed.worstTimeMs == 200)
        let diff = try PNGReader.read(result.directory.appendingPathComponent(changed.worstPairHrefs[2]))
        // Inside the black box the difference is far larger than outside it (the frame's own palette moved a little).
        let inside = diff.pixel(x: 32, y: 24), outside = diff.pixel(x: 1, y: 1)
        #expect(Int(inside.r) + Int(inside.g) + Int(inside.b) > 3 * (Int(outside.r) + Int(outside.g) + Int(outside.b)) && inside.a == 255)
        let reencoded = try #require(result.document.clips.first { $0.input == "/clips/reencoded.mp4" }?.change)
        #expect((reencoded.worstSSIM ?? 0) >= ChangeClassifier.reencodedSSIM && (reencoded.worstSSIM ?? 1) < 1)

        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<svg class=\"ssim-curve\"") && html.contains("<polyline class=\"ssim\""))
        #expect(!html.contains("style="))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: result.directory.appendingPathComponent("report.json"))) as? [String: Any]
        let totals = json?["totals"] as? [String: Any]
        #expect(totals?["changes"] as? [String: Int] == ["identical": 2, "timing-only": 1, "re-encoded": 1, "visual": 1, "new": 1, "removed": 1])
    }

    /// The same tree checked out in another place (CI workspaces differ between runners): clips
    /// are matched by their path under the directory each run's inputs share, so nothing is
    /// new or removed (every clip was both, and --fail-on visual passed).
    @Test func anotherCheckoutPlaceMatchesTheSameClips() throws {
        let dir = Fixture.scratchDirectory()
        let runs = dir.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        var base: [String] = [], now: [String] = []
        for (index, name) in ["a", "sub/b", "gone"].enumerated() {
            let before = runs.appendingPathComponent("\(index)-before.gif"), after = runs.appendingPathComponent("\(index)-after.gif")
            try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: before)
            try FileManager.default.copyItem(at: Fixture.url(index == 1 ? "report/changed.gif" : "report/base.gif"), to: after)
            base.append(ReportTests.line("/builds/runner-1/project/media/\(name).mp4", outputs: [before.path]))
            if name != "gone" { now.append(ReportTests.line("/home/ci/work/project@2/media/\(name).mp4", outputs: [after.path])) }
        }
        var options = ReportOptions()
        options.copyMedia = true
        _ = try ReportWriter(options: options).write(RunSet.merge([("base", base.joined(separator: "\n"))]), to: dir.appendingPathComponent("base"))
        options.copyMedia = false
        options.baseline = dir.appendingPathComponent("base")
        let result = try ReportWriter(options: options).write(RunSet.merge([("now", now.joined(separator: "\n"))]), to: dir.appendingPathComponent("report"))
        let classes = Dictionary(uniqueKeysWithValues: result.document.clips.map { ($0.input, $0.change?.kind) })
        #expect(classes["/home/ci/work/project@2/media/a.mp4"] == .identical)
        #expect(classes["/home/ci/work/project@2/media/sub/b.mp4"] == .visual)
        #expect(result.document.removed == ["/builds/runner-1/project/media/gone.mp4"])
        #expect(ChangeClassifier.relativeNames(["/w/x/a.mp4", "/w/x/s/b.mp4", "-"]) == ["/w/x/a.mp4": "a.mp4", "/w/x/s/b.mp4": "s/b.mp4"])
    }

    /// A clip whose GIF failed this run (its poster made as before) is a change, not "identical"
    /// by its posters: an output the baseline has and this run lacks trips `--fail-on visual`.
    @Test func anOutputGoneThisRunIsAChange() throws {
        let dir = Fixture.scratchDirectory()
        let runs = dir.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        let gif = runs.appendingPathComponent("clip.gif"), poster = runs.appendingPathComponent("clip.png")
        try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: gif)
        try FileManager.default.copyItem(at: Fixture.url("gif/expected/all_zero_delays-0.png"), to: poster)
        var options = ReportOptions()
        options.copyMedia = true
        let base = [ReportTests.line("/clips/clip.mp4", outputs: [gif.path]), ReportTests.line("/clips/clip.mp4", outputs: [poster.path])]
        _ = try ReportWriter(options: options).write(RunSet.merge([("base", base.joined(separator: "\n"))]), to: dir.appendingPathComponent("base"))
        options.copyMedia = false
        options.baseline = dir.appendingPathComponent("base")
        options.failOn = [.visual]
        let now = [ReportTests.line("/clips/clip.mp4", status: "error", error: "/clips/clip.mp4: damaged file"),
                   ReportTests.line("/clips/clip.mp4", outputs: [poster.path])]
        let result = try ReportWriter(options: options).write(RunSet.merge([("now", now.joined(separator: "\n"))]), to: dir.appendingPathComponent("report"))
        let change = try #require(result.document.clips.first?.change)
        #expect(change.kind == .visual && change.note == "no gif output this run, where the baseline has one", "\(change)")
        #expect(result.gateFailures == ["1 clips changed visually"])
    }

    @Test func bothRunsMP4sMakeASyncedCompareViewElseTheGIFs() throws {
        let dir = Fixture.scratchDirectory()
        let runs = dir.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        for name in ["before.gif", "after.gif", "other.gif"] { try FileManager.default.copyItem(at: Fixture.url("report/base.gif"), to: runs.appendingPathComponent(name)) }
        for name in ["before.mp4", "after.mp4"] { try FileManager.default.copyItem(at: Fixture.url("video/motion.mp4"), to: runs.appendingPathComponent(name)) }
        let base = [ReportTests.line("/clips/a.mp4", outputs: [runs.appendingPathComponent("before.gif").path, runs.appendingPathComponent("before.mp4").path]),
                    ReportTests.line("/clips/b.mp4", outputs: [runs.appendingPathComponent("before.gif").path, runs.appendingPathComponent("before.mp4").path])]
        let now = [ReportTests.line("/clips/a.mp4", outputs: [runs.appendingPathComponent("after.gif").path, runs.appendingPathComponent("after.mp4").path]),
                   ReportTests.line("/clips/b.mp4", outputs: [runs.appendingPathComponent("other.gif").path])]
        var options = ReportOptions()
        options.copyMedia = true
        _ = try ReportWriter(options: options).write(RunSet.merge([("base", base.joined(separator: "\n"))]), to: dir.appendingPathComponent("base"))
        options.baseline = dir.appendingPathComponent("base")
        let result = try ReportWriter(options: options).write(RunSet.merge([("now", now.joined(separator: "\n"))]), to: dir.appendingPathComponent("report"))
        let a = try #require(result.document.clips.first { $0.input == "/clips/a.mp4" }?.change)
        #expect(a.baselineVideoHref == "media/clip-1-baseline.mp4")
        #expect(try Data(contentsOf: result.directory.appendingPathComponent("media/clip-1-baseline.mp4")) == Data(contentsOf: Fixture.url("video/motion.mp4")))
        #expect(result.document.clips.first { $0.input == "/clips/b.mp4" }?.change?.baselineVideoHref == nil)
        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        let compares = html.components(separatedBy: "<div class=\"compare\" data-mode=\"side\">").dropFirst().map { String($0.prefix { $0 != "\n" }) }
        #expect(compares.count == 2)
        // a: the two MP4s; b (no MP4 in this run): the two GIFs.
        #expect(compares[0].contains("<video src=\"media/clip-1-baseline.mp4\"") && compares[0].contains("<video src=\"media/1-2-after.mp4\""), "\(compares[0])")
        #expect(!compares[0].contains("<img") && compares[1].contains("<img src=\"media/clip-2-baseline.gif\"") && !compares[1].contains("<video"))
    }

    @Test func notAReportIsABaselineError() throws {
        var options = ReportOptions()
        options.baseline = Fixture.url("report")
        #expect(throws: ClipKitError.self) {
            _ = try ReportWriter(options: options).write(RunSet.merge([]), to: Fixture.scratchDirectory().appendingPathComponent("r"))
        }
    }
}
