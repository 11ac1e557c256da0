// `gif --measure`: the SSIM and duration error clipkit reports agree with an independent measurement of the file, SSIMULACRA2 sees colour damage; `--min-quality` refuses what measures below it.
import Foundation
import Testing
import TestSupport

@Suite struct MeasureTests {
    static let clip = Fixture.url("video/motion.mp4")

    func report(_ run: CLI.Result) throws -> [String: Any] {
        try #require(try Decoded.jsonLines(run.stdout).first)
    }

    @Test(arguments: [
        ["--measure"], ["--lossy", "150", "--measure"], ["--quality", "40"], ["--colors", "16", "--dither", "none", "--measure"],
        ["--fps", "7", "--width", "200", "--measure"],
    ])
    func theReportedSSIMAgreesWithAnIndependentMeasurement(_ options: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Self.clip.path, "-o", "m.gif", "--json"] + options, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try report(run)
        let reported = try #require(json["ssim"] as? Double)
        let width = try #require(json["width"] as? Int), height = try #require(json["height"] as? Int)
        let fps = options.firstIndex(of: "--fps").map { Int(options[$0 + 1])! } ?? 10
        let reference = try FFmpegReference.measure(gif: dir.appendingPathComponent("m.gif"), source: Self.clip, fps: fps,
                                                    width: width, height: height)
        #expect(abs(reported - reference) < 0.005, "clipkit \(reported), ffmpeg-based \(reference)")
        // The clip lasts 3 s; delays are rounded cumulatively, so the GIF lasts 3 s too.
        #expect(json["duration_error_ms"] as? Int == 0)
        #expect(reported > 0.5 && reported < 1)
        let mean = try #require(json["ssimulacra2"] as? Double), p5 = try #require(json["ssimulacra2_p5"] as? Double)
        #expect(mean > 0 && mean < 100 && p5 <= mean, "SSIMULACRA2 \(mean), 5th percentile \(p5)")
    }

    /// Four colours without dithering keep the luma roughly but ruin the colours: SSIMULACRA2
    /// (colour-aware) falls far more than a few points; identical settings give identical figures.
    @Test func fewColoursScoreClearlyLowerInSSIMULACRA2() throws {
        let dir = Fixture.scratchDirectory()
        let good = try report(try CLI.run(["gif", Self.clip.path, "-o", "good.gif", "--json", "--measure"], in: dir))
        let bad = try report(try CLI.run(["gif", Self.clip.path, "-o", "bad.gif", "--json", "--measure", "--colors", "4", "--dither", "none"], in: dir))
        let again = try report(try CLI.run(["gif", Self.clip.path, "-o", "again.gif", "--json", "--measure"], in: dir))
        let goodScore = try #require(good["ssimulacra2"] as? Double), badScore = try #require(bad["ssimulacra2"] as? Double)
        #expect(goodScore > 70, "default: \(goodScore)")
        #expect(badScore < goodScore - 30, "default \(goodScore), 4 colours \(badScore)")
        #expect(try #require(bad["ssimulacra2_p5"] as? Double) < goodScore - 30)
        #expect(again["ssimulacra2"] as? Double == goodScore && again["ssimulacra2_p5"] as? Double == good["ssimulacra2_p5"] as? Double)
    }

    @Test func moreLossGivesALowerFigure() throws {
        let dir = Fixture.scratchDirectory()
        var figures: [Double] = [], scores: [Double] = []
        for lossy in [0, 60, 400] {
            let run = try CLI.run(["gif", Self.clip.path, "-o", "l\(lossy).gif", "--json", "--measure", "--lossy", "\(lossy)"], in: dir)
            figures.append(try #require(try report(run)["ssim"] as? Double))
            scores.append(try #require(try report(run)["ssimulacra2"] as? Double))
        }
        #expect(figures[0] > figures[1] && figures[1] > figures[2], "\(figures)")
        #expect(scores[0] > scores[1] && scores[1] > scores[2], "\(scores)")
        // Without --measure (and without --quality/--max-bytes) nothing is measured.
        let plain = try CLI.run(["gif", Self.clip.path, "-o", "plain.gif", "--json"], in: dir)
        #expect(try report(plain)["ssim"] is NSNull)
        #expect(try report(plain)["ssimulacra2"] is NSNull && report(plain)["ssimulacra2_p5"] is NSNull)
    }

    @Test func aGIFBelowMinQualityIsNotWritten() throws {
        let dir = Fixture.scratchDirectory()
        // The default GIF of this clip scores about 85: a floor of 95 refuses even it.
        for options in [["--lossy", "600"], []] {
            let run = try CLI.run(["gif", Self.clip.path, "-o", "low.gif", "--min-quality", "95"] + options, in: dir)
            #expect(run.status == 1)
            #expect(run.stderrLines.count == 1 && run.stderr.contains("below --min-quality 95"), "\(run.stderr)")
            #expect(CLI.files(in: dir).isEmpty)
        }
        let ok = try CLI.run(["gif", Self.clip.path, "-o", "ok.gif", "--min-quality", "50", "--json"], in: dir)
        #expect(ok.status == 0)
        #expect((try report(ok)["ssimulacra2"] as? Double ?? 0) >= 50)
    }

    @Test func maxBytesKeepsToTheQualityFloorWithASmallerPicture() throws {
        let dir = Fixture.scratchDirectory()
        let full = try CLI.run(["gif", Self.clip.path, "-o", "full.gif", "--json"], in: dir)
        let bytes = try #require(try report(full)["bytes"] as? Int)
        // A quarter of the bytes at a floor no full-width lossy level reaches: a narrower GIF.
        let limit = bytes / 4
        let run = try CLI.run(["gif", Self.clip.path, "-o", "fit.gif", "--json", "--max-bytes", "\(limit)", "--min-quality", "80"], in: dir)
        if run.status == 0 {
            let json = try report(run)
            #expect((json["ssimulacra2"] as? Double ?? 0) >= 80)
            #expect((json["bytes"] as? Int ?? .max) <= limit)
            #expect((json["width"] as? Int ?? .max) < 320)
            let settings = try #require(json["settings"] as? [String: Int])
            #expect(settings["lossy"] != nil && settings["colors"] != nil)
        } else {
            #expect(run.status == 1)
            #expect(run.stderr.contains("no GIF of SSIMULACRA2 80 or more fits"), "\(run.stderr)")
            #expect(!CLI.files(in: dir).contains("fit.gif"))
        }
    }

    /// Out of 0-100, an SSIM as the option took before (0.5), or a floor with nothing measured.
    @Test(arguments: [["--min-quality", "101"], ["--min-quality", "-1"], ["--min-quality", "0.5"], ["--min-quality", "1"],
                      ["--min-quality", "50", "--no-measure"]])
    func badMeasureOptionsAreUsageErrors(_ options: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Self.clip.path, "-o", "x.gif"] + options, in: dir)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }
}
