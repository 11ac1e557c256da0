// `clipkit thumb --pick best` as a user runs it: the pick in --json and on disk, --count names in
// batches and directories, up-to-date reruns, --within, odd inputs, and usage errors.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct PickCommandTests {
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func picks(_ object: [String: Any]) throws -> [[String: Any]] {
        try #require(object["picks"] as? [[String: Any]], "\(object)")
    }

    func video(_ name: String) -> String { Fixture.url("video/\(name)").path }

    /// Timestamps out of order (a Matroska cluster claiming 65.5 s among frames under 1 s): the
    /// picker scored a frame there that no seek finds again, and the thumbnail failed ("start
    /// 65.735s is past the end of the clip", exit 1) where plain `thumb` works. The first frame
    /// stands in, with a warning.
    @Test func aPickNoSeekFindsAgainGivesTheFirstFrame() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("hostile/cluster_time_jump.mkv").path
        let run = try CLI.run(["thumb", clip, "--pick", "best", "--json", "-o", "best.png"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("could not be decoded again") && run.stderr.contains("wrote the first frame instead"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        let object = try #require(try objects(run.stdout).first)
        #expect(object["status"] as? String == "ok" && (object["outputs"] as? [String])?.count == 1)
        let first = try CLI.run(["thumb", clip, "-o", "first.png"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try PNGReader.read(dir.appendingPathComponent("best.png")) == PNGReader.read(dir.appendingPathComponent("first.png")))
        // Several posters: those a seek finds, the others left out with a warning each.
        let three = try CLI.run(["thumb", clip, "--pick", "best", "--count", "3", "-o", "three/"], in: dir)
        #expect(three.status == 0, "\(three.stderr)")
        #expect(!CLI.files(in: dir.appendingPathComponent("three")).isEmpty)
    }

    @Test(arguments: ["pick.mp4", "pick_onekey.mp4"])
    func pickLandsInTheContentAndIsTheFrameAtItsTime(_ name: String) throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["thumb", video(name), "--pick", "best", "--json", "-o", "best.png"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try objects(run.stdout).first)
        let pick = try #require(try picks(object).first)
        let time = try #require(pick["time"] as? Double)
        // 6-12 s is the sharp content; before it black, a fade, a title card and a blurred stretch.
        #expect(time >= 6 && time < 12, "\(pick)")
        #expect(pick["output"] as? String == dir.appendingPathComponent("best.png").path)
        #expect((pick["score"] as? Double ?? 0) > 0.3 && pick["blank"] as? Bool == false)
        #expect(object["frames"] as? Int == 1 && (object["outputs"] as? [String])?.count == 1)

        // The time --json gives is a time --at takes: the same frame, pixel for pixel.
        let at = try CLI.run(["thumb", video(name), "--at", "\(time)", "-o", "at.png"], in: dir)
        #expect(at.status == 0, "\(at.stderr)")
        let written = try PNGReader.read(dir.appendingPathComponent("best.png"))
        #expect(written == (try PNGReader.read(dir.appendingPathComponent("at.png"))))
        #expect(written == (try Thumbnailer(options: ThumbnailOptions(position: .seconds(time))).thumbnail(of: Fixture.url("video/\(name)"))))
        _ = try CLI.run(["thumb", video(name), "-o", "first.png"], in: dir)
        #expect(written != (try PNGReader.read(dir.appendingPathComponent("first.png"))), "not the first frame")
    }

    @Test func countInADirectoryBatchAndUpToDateReruns() throws {
        let dir = Fixture.scratchDirectory()
        let arguments = ["thumb", video("pick.mp4"), video("pick_onekey.mp4"), "--pick", "best", "--count", "3", "-o", "posters/", "--json"]
        let run = try CLI.run(arguments, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let posters = dir.appendingPathComponent("posters")
        #expect(CLI.files(in: posters) == ["pick-1.png", "pick-2.png", "pick-3.png", "pick_onekey-1.png", "pick_onekey-2.png", "pick_onekey-3.png"])
        for object in try objects(run.stdout) {
            let list = try picks(object)
            #expect(list.count == 3 && object["frames"] as? Int == 3)
            #expect(list.map { $0["output"] as? String } == (object["outputs"] as? [String])?.map { $0 })
            let times = list.compactMap { $0["time"] as? Double }
            #expect(Set(times).count == 3 && times.allSatisfy { $0 >= 6 && $0 < 12 }, "\(times)")
            // Each file is the frame at its time.
            for entry in list {
                let file = URL(fileURLWithPath: try #require(entry["output"] as? String))
                let time = try #require(entry["time"] as? Double)
                let input = try #require(object["input"] as? String)
                #expect(try PNGReader.read(file) == (try Thumbnailer(options: ThumbnailOptions(position: .seconds(time))).thumbnail(of: URL(fileURLWithPath: input))))
            }
        }

        // Nothing changed: both skipped, by the fingerprint every poster records.
        let again = try CLI.run(arguments, in: dir)
        #expect(try objects(again.stdout).map { $0["status"] as? String } == ["skipped", "skipped"], "\(again.stdout)")
        // One poster missing: that input is made again, the other stays skipped.
        try FileManager.default.removeItem(at: posters.appendingPathComponent("pick-2.png"))
        let third = try CLI.run(arguments, in: dir)
        #expect(try objects(third.stdout).map { $0["status"] as? String } == ["ok", "skipped"])
        // Another count is another fingerprint.
        let two = try CLI.run(["thumb", video("pick.mp4"), "--pick", "best", "--count", "2", "-o", "posters/x.png", "--json"], in: dir)
        #expect(two.status == 0 && CLI.files(in: posters).contains("x-2.png") && !CLI.files(in: posters).contains("x-3.png"))
    }

    @Test func singleOutputNameWithCountAndDefaultsUnchanged() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["thumb", video("pick.mp4"), "--pick", "best", "--count", "2", "-o", "poster.png"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CLI.files(in: dir) == ["poster-1.png", "poster-2.png"])

        // --pick first is the default: same bytes, and an existing thumbnail stays up to date.
        _ = try CLI.run(["thumb", video("pick.mp4"), "-o", "plain.png"], in: dir)
        let first = try CLI.run(["thumb", video("pick.mp4"), "--pick", "first", "-o", "plain.png", "--json"], in: dir)
        #expect(try objects(first.stdout).first?["status"] as? String == "skipped")
        #expect(try objects(first.stdout).first?["picks"] is NSNull, "picks is null unless --pick best")
    }

    @Test func withinStillsOneFrameAndOneKeyframe() throws {
        let dir = Fixture.scratchDirectory()
        let within = try CLI.run(["thumb", video("pick.mp4"), "--pick", "best", "--within", "00:05", "--json", "-o", "w.png"], in: dir)
        #expect(within.status == 0, "\(within.stderr)")
        let windowed = try #require(try objects(within.stdout).first)
        let time = try #require(try picks(windowed).first?["time"] as? Double)
        #expect(time < 5 && time >= 1, "\(time)")
        // A clip longer than --max-duration is searched as far as it allows, not refused.
        let limited = try CLI.run(["thumb", video("pick.mp4"), "--pick", "best", "--max-duration", "5", "--json", "-o", "m.png"], in: dir)
        #expect(limited.status == 0, "\(limited.stderr)")
        let limitedObject = try #require(try objects(limited.stdout).first)
        #expect(try #require(try picks(limitedObject).first?["time"] as? Double) < 5)

        for name in ["../gif-test-suite/gifs/animated_loop_variable_delay.gif", "still.png", "still_over_audio.mp4", "seek_onekey.webm", "vfr.mkv", "rotated90.mov", "fragmented_open.mp4", "motion.mp4"] {
            let output = URL(fileURLWithPath: name).lastPathComponent + ".png"
            let run = try CLI.run(["thumb", video(name), "--pick", "best", "--json", "-o", output], in: dir)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let object = try #require(try objects(run.stdout).first)
            let pick = try #require(try picks(object).first, "\(name)")
            let time = try #require(pick["time"] as? Double)
            #expect(!run.stdout.contains("\"time\":-"), "\(run.stdout)")
            let written = try PNGReader.read(dir.appendingPathComponent(output))
            #expect(written == (try Thumbnailer(options: ThumbnailOptions(position: .seconds(time))).thumbnail(of: Fixture.url("video/\(name)"))), "\(name)")
        }
        // A still asked for three: one file, and a warning saying why.
        let still = try CLI.run(["thumb", video("still.png"), "--pick", "best", "--count", "3", "-o", "s.png"], in: dir)
        #expect(still.status == 0 && CLI.files(in: dir).contains("s-1.png") && !CLI.files(in: dir).contains("s-2.png"))
        #expect(still.stderrLines.count == 1 && still.stderr.contains("only 1 distinct frame"), "\(still.stderr)")
    }

    @Test func badValuesExitTwoAndWriteNothing() throws {
        let dir = Fixture.scratchDirectory()
        let bad: [[String]] = [["--pick", "best", "--count", "0"], ["--pick", "best", "--count", "-1"], ["--pick", "best", "--count", "101"],
                               ["--pick", "best", "--within", "0"], ["--pick", "best", "--within", "-3"], ["--pick", "best", "--within", "soon"],
                               ["--pick", "bogus"], ["--pick", "best", "--at", "2"], ["--pick", "best", "--at", "10%"],
                               ["--count", "2"], ["--within", "3"], ["--pick", "first", "--count", "2"]]
        for arguments in bad {
            let run = try CLI.run(["thumb", video("pick.mp4")] + arguments, in: dir)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            // (A negative number reads as an option to the argument parser, which prints its usage.)
            #expect(run.stderrLines.count == 1 || arguments.contains { Double($0).map { $0 < 0 } == true }, "\(arguments): \(run.stderr)")
        }
        #expect(CLI.files(in: dir).isEmpty)
    }
}
