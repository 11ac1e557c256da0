// `clipkit storyboard` as a user runs it: output names, batches, reruns, exit codes, one-line errors, nothing half-written.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct StoryboardCommandTests {
    @Test func writesNameDotStoryboardBesideTheCurrentDirectory() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["storyboard", Fixture.url("video/counter.mp4").path, "--interval", "0.5", "--format", "png"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CLI.files(in: dir) == ["counter.storyboard", "counter.storyboard/sheet_0.png",
                                       "counter.storyboard/storyboard.json", "counter.storyboard/storyboard.vtt"])
        let track = try ThumbnailTrack(contentsOf: dir.appendingPathComponent("counter.storyboard/storyboard.vtt"))
        #expect(track.coverageProblem(durationMs: 4000) == nil)
        let sheet = try PNGReader.read(dir.appendingPathComponent("counter.storyboard/sheet_0.png"))
        for (i, cue) in track.cues.enumerated() {
            #expect(cue.file == "sheet_0.png" && cue.width == 160 && cue.height == 120)
            #expect(cue.x + cue.width <= sheet.width && cue.y + cue.height <= sheet.height)
            let p = sheet.pixel(x: cue.x + 80, y: cue.y + 60)
            #expect((Int(p.g) - 8 + 8) / 16 * 16 + (Int(p.r) - 8 + 8) / 16 == 15 * i, "tile \(i) is counter frame \(15 * i)")
        }
    }

    /// Two inputs in one run, --json reports, then a rerun that finds both up to date, and a
    /// changed option that redoes them.
    @Test func batchOfTwoWithReruns() throws {
        let dir = Fixture.scratchDirectory()
        let inputs = [Fixture.url("video/counter.mp4").path, Fixture.url("video/rotated90.mov").path]
        let first = try CLI.run(["storyboard"] + inputs + ["-o", "boards/", "--json", "--jobs", "2", "--interval", "0.5"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let reports = try first.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(reports.count == 2)
        #expect(reports.map { $0["status"] as? String } == ["ok", "ok"])
        #expect(reports.map { $0["frames"] as? Int } == [8, 2])
        #expect(reports.map { $0["width"] as? Int } == [160, 160] && reports.map { $0["height"] as? Int } == [120, 213])
        #expect(reports.map { $0["duration_ms"] as? Int } == [4000, 1000])
        #expect(reports.map { ($0["outputs"] as? [String])?.first?.hasSuffix(".storyboard") } == [true, true])
        #expect(CLI.files(in: dir.appendingPathComponent("boards")).filter { !$0.contains("/") } == ["counter.storyboard", "rotated90.storyboard"])

        let again = try CLI.run(["storyboard"] + inputs + ["-o", "boards/", "--json", "--interval", "0.5"], in: dir)
        #expect(again.status == 0)
        #expect(again.stdout.components(separatedBy: "\"status\":\"skipped\"").count == 3, "\(again.stdout)")

        let changed = try CLI.run(["storyboard"] + inputs + ["-o", "boards/", "--json", "--interval", "1"], in: dir)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.components(separatedBy: "\"status\":\"ok\"").count == 3, "an out-of-date storyboard is replaced")
        let manifest = try StoryboardManifest.read(from: dir.appendingPathComponent("boards/counter.storyboard/storyboard.json"))
        #expect(manifest.tiles.count == 4)
        #expect(!CLI.files(in: dir).contains { $0.contains(".clipkit-") }, "no staging directories left")
    }

    @Test func usageErrorsExitTwoAndWriteNothing() throws {
        let dir = Fixture.scratchDirectory()
        let cases = [["--count", "0"], ["--interval", "0"], ["--interval", "abc"], ["--interval", "1", "--count", "2"],
                     ["--tile", "abc"], ["--tile", "0"], ["--tile", "160x"], ["--format", "gif"], ["--quality", "0"],
                     ["--columns", "0"], ["--max-sheet", "0"], ["--bogus"]]
        for arguments in cases {
            let result = try CLI.run(["storyboard", Fixture.url("video/counter.mp4").path] + arguments, in: dir)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderrLines.count >= 1)
        }
        #expect(CLI.files(in: dir).isEmpty)
    }

    /// The default command on a picture 205 times taller than wide (tall.mp4, 32x6560 tiles)
    /// failed with "--columns: sheets of 320x65600 pixels ... use fewer --columns", an option
    /// not given, that would not help, and no input named. Now its sheets get fewer rows; a
    /// layout that cannot fit fails for that input alone, naming it (exit 1).
    @Test func tallPictureAndSheetsTooWide() throws {
        let dir = Fixture.scratchDirectory()
        let tall = Fixture.url("video/tall.mp4").path
        let run = try CLI.run(["storyboard", tall, "--interval", "0.02"], in: dir)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let manifest = try StoryboardManifest.read(from: dir.appendingPathComponent("tall.storyboard/storyboard.json"))
        #expect(manifest.sheets.map { [$0.width, $0.height, $0.tiles] } == [[320, 59040, 90], [320, 6560, 10]])

        let wide = try CLI.run(["storyboard", tall, "--format", "webp", "--columns", "600", "--max-sheet", "600", "-o", "wide"], in: dir)
        #expect(wide.status == 1)
        #expect(wide.stderrLines == ["clipkit: \(tall): rows of 600 tiles of 32x6560 pixels are 19200 pixels wide, over webp's "
                                     + "16383-pixel limit; use at most 511 --columns or a smaller --tile"], "\(wide.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("wide").path))
    }

    @Test func badInputsFailAloneWithOneLine() throws {
        let dir = Fixture.scratchDirectory()
        let bad = ["audio_only.m4a", "not_video.mp4", "truncated.mp4", "missing.mp4"].map { Fixture.url("video/\($0)").path }
        let result = try CLI.run(["storyboard"] + bad + [Fixture.url("video/counter.mp4").path, "-o", "out/"], in: dir)
        #expect(result.status == 1)
        #expect(result.stderrLines.filter { $0.hasPrefix("clipkit: /") }.count == 4, "\(result.stderr)")
        #expect(result.stderrLines.last == "clipkit: 1 done, 4 failed")
        #expect(CLI.files(in: dir.appendingPathComponent("out")).filter { !$0.contains("/") } == ["counter.storyboard"])
        #expect(!CLI.files(in: dir).contains { $0.contains(".clipkit-") })
    }

    /// A non-empty directory that is not an earlier storyboard is left alone, --force or not.
    @Test func foreignDirectoryIsRefused() throws {
        let dir = Fixture.scratchDirectory()
        let target = dir.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: target.appendingPathComponent("notes.txt"))
        for force in [false, true] {
            let result = try CLI.run(["storyboard", Fixture.url("video/counter.mp4").path, "-o", "mine"] + (force ? ["--force"] : []), in: dir)
            #expect(result.status == 1)
            #expect(result.stderrLines.count == 1 && result.stderr.contains("mine"), "\(result.stderr)")
        }
        #expect(CLI.files(in: dir) == ["mine", "mine/notes.txt"])
    }
}
