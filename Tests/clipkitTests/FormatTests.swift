// `gif` writing WebP and MP4 beside (or instead of) the GIF: one decode, timed alike, read back
// by ffprobe and by the WebP file's own chunks; the same bytes whatever the heap held or the
// other outputs; usage errors; nothing left behind on failure.
import ClipKit
import Foundation
import Testing
import TestSupport

@Suite struct FormatTests {
    static let clip = Fixture.url("video/motion.mp4")

    /// ffprobe's view of a file's first video stream: codec, pixel format, size, frames, duration.
    static func probe(_ url: URL) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                             "stream=codec_name,pix_fmt,width,height,nb_read_frames,duration", "-of", "default=nw=1", url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// An animated WebP's frames' durations (ms) and loop count, from its RIFF chunks.
    static func webp(_ url: URL) throws -> (durations: [Int], loop: Int?) {
        let d = [UInt8](try Data(contentsOf: url))
        #expect(d.count > 12 && String(decoding: d[0..<4], as: UTF8.self) == "RIFF" && String(decoding: d[8..<12], as: UTF8.self) == "WEBP")
        var at = 12, durations: [Int] = [], loop: Int?
        while at + 8 <= d.count {
            let tag = String(decoding: d[at..<(at + 4)], as: UTF8.self)
            let size = Int(d[at + 4]) | Int(d[at + 5]) << 8 | Int(d[at + 6]) << 16 | Int(d[at + 7]) << 24
            if tag == "ANIM" { loop = Int(d[at + 12]) | Int(d[at + 13]) << 8 }
            if tag == "ANMF" { durations.append(Int(d[at + 20]) | Int(d[at + 21]) << 8 | Int(d[at + 22]) << 16) }
            at += 8 + size + (size & 1)
        }
        return (durations, loop)
    }

    @Test func oneDecodeWritesGIFWebPAndMP4TimedAlike() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Self.clip.path, "-o", "a.gif", "-o", "a.webp", "-o", "a.mp4", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CLI.files(in: dir) == ["a.gif", "a.mp4", "a.webp"])
        let gif = try Decoded.gif(dir.appendingPathComponent("a.gif"), keep: 0)
        #expect(gif.delays.reduce(0, +) == 300)
        let mp4 = try Self.probe(dir.appendingPathComponent("a.mp4"))
        #expect(mp4["codec_name"] == "h264" && mp4["pix_fmt"] == "yuv420p", "\(mp4)")
        #expect(mp4["width"] == "320" && mp4["height"] == "180")
        #expect(mp4["nb_read_frames"] == "30")
        #expect(abs(Double(mp4["duration"] ?? "0")! - 3.0) < 0.001, "\(mp4)")
        // moov before mdat (fast start)
        let bytes = try Data(contentsOf: dir.appendingPathComponent("a.mp4"))
        let moov = try #require(bytes.range(of: Data("moov".utf8))), mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)
        let webp = try Self.webp(dir.appendingPathComponent("a.webp"))
        #expect(webp.durations.count == 30 && webp.durations.reduce(0, +) == 3000, "\(webp.durations)")
        #expect(webp.loop == 0)
        let json = try #require(try Decoded.jsonLines(run.stdout).first)
        #expect((json["outputs"] as? [String])?.count == 3)
        let total = try ["a.gif", "a.webp", "a.mp4"].reduce(0) { sum, name in
            sum + ((try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
        }
        #expect(json["bytes"] as? Int == total)
        // The same bytes again (deterministic outputs).
        let again = try CLI.run(["gif", Self.clip.path, "-o", "b.gif", "-o", "b.webp", "-o", "b.mp4"], in: dir)
        #expect(again.status == 0)
        for ext in ["gif", "webp", "mp4"] {
            #expect(try Data(contentsOf: dir.appendingPathComponent("a.\(ext)")) == Data(contentsOf: dir.appendingPathComponent("b.\(ext)")), "\(ext)")
        }
    }

    @Test func upToDateOutputsAreSkippedAndTheirSettingsRedoThem() throws {
        let dir = Fixture.scratchDirectory()
        let outputs = ["-o", "a.gif", "-o", "a.webp", "-o", "a.mp4"]
        #expect(try CLI.run(["gif", Self.clip.path] + outputs, in: dir).status == 0)
        let mp4 = try Data(contentsOf: dir.appendingPathComponent("a.mp4"))
        let again = try CLI.run(["gif", Self.clip.path, "--json"] + outputs, in: dir)
        #expect(try Decoded.jsonLines(again.stdout).first?["status"] as? String == "skipped", "\(again.stdout)")
        // Another CRF makes another MP4 (the fingerprint holds the WebP/MP4 settings).
        let crf = try CLI.run(["gif", Self.clip.path, "--json", "--crf", "35"] + outputs, in: dir)
        #expect(try Decoded.jsonLines(crf.stdout).first?["status"] as? String == "ok")
        #expect(try Data(contentsOf: dir.appendingPathComponent("a.mp4")).count < mp4.count)
        // The recorded fingerprints do not disturb readers: still 30 frames, 3 s, and 30 WebP frames.
        let probed = try Self.probe(dir.appendingPathComponent("a.mp4"))
        #expect(probed["nb_read_frames"] == "30" && abs(Double(probed["duration"] ?? "0")! - 3) < 0.001)
        let webp = try Self.webp(dir.appendingPathComponent("a.webp"))
        #expect(webp.durations.count == 30)
        let riff = [UInt8](try Data(contentsOf: dir.appendingPathComponent("a.webp")))
        #expect(Int(riff[4]) | Int(riff[5]) << 8 | Int(riff[6]) << 16 | Int(riff[7]) << 24 == riff.count - 8)
    }

    /// x264's AVX-512 macroblock tree read past its arrays into bytes nothing wrote, so an MP4
    /// depended on what earlier work in the process had left on the heap: in a batch, 11 of 66
    /// MP4s changed from run to run (`AnimationEncoder.x264Features`). MALLOC_PERTURB_=1 has
    /// glibc fill every allocation with 0xFE, which those lanes read as a motion vector into the
    /// picture with a cost: this clip's MP4 (9 macroblocks wide) changed; 255 fills with zeros,
    /// which never count, and 0 leaves the heap as it is. (Without AVX-512 they agreed anyway.)
    @Test func mp4BytesDoNotDependOnWhatTheHeapHeld() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/mbtree_tail.mp4")
        var files: [String: Data] = [:]
        for perturb in ["0", "1", "255"] {
            let run = try CLI.run(["gif", clip.path, "-o", "p\(perturb).mp4"], in: dir, environment: ["MALLOC_PERTURB_": perturb])
            #expect(run.status == 0, "\(run.stderr)")
            files[perturb] = try Data(contentsOf: dir.appendingPathComponent("p\(perturb).mp4"))
        }
        #expect(files["1"] == files["0"], "0xFE on the heap changed the MP4")
        #expect(files["255"] == files["0"], "zeros on the heap changed the MP4")
    }

    /// Another set of outputs gives the same pictures and timing: an MP4 or WebP differs only in
    /// the fingerprint it records at its end, the run's, which names the formats written.
    @Test func anotherOutputSetChangesOnlyTheRecordedFingerprint() throws {
        let dir = Fixture.scratchDirectory()
        for outputs in [["a.mp4"], ["b.webp"], ["c.webp", "c.mp4"], ["d.gif", "d.webp", "d.mp4"]] {
            let run = try CLI.run(["gif", Self.clip.path] + outputs.flatMap { ["-o", $0] }, in: dir)
            #expect(run.status == 0, "\(outputs): \(run.stderr)")
        }
        // Everything before the trailing box (MP4 `free`) or chunk (WebP `CKFP`) holding the fingerprint.
        func media(_ name: String) throws -> (bytes: Data, fingerprint: Fingerprint?) {
            let url = dir.appendingPathComponent(name)
            let data = try Data(contentsOf: url)
            let marker = try #require(data.range(of: Data("clipkit-fingerprint ".utf8), options: .backwards), "\(name)")
            return (data.prefix(marker.lowerBound - 8), Fingerprint.recorded(in: url))
        }
        for (one, others) in [("a.mp4", ["c.mp4", "d.mp4"]), ("b.webp", ["c.webp", "d.webp"])] {
            let alone = try media(one)
            for other in others {
                let together = try media(other)
                #expect(together.bytes == alone.bytes, "\(one) vs \(other)")
                #expect(together.fingerprint != nil && together.fingerprint != alone.fingerprint)
            }
        }
    }

    @Test func formatsNameOutputsAfterTheInputInBatches() throws {
        let dir = Fixture.scratchDirectory()
        let inputs = [Fixture.url("video/counter.mp4").path, Fixture.url("video/vfr.mkv").path]
        let run = try CLI.run(["gif"] + inputs + ["--format", "mp4,webp", "-o", "out/", "--fps", "5", "--no-loop"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CLI.files(in: dir) == ["out", "out/counter.mp4", "out/counter.webp", "out/vfr.mp4", "out/vfr.webp"])
        // --no-loop: the WebP plays once.
        #expect(try Self.webp(dir.appendingPathComponent("out/counter.webp")).loop == 1)
        // The VFR clip's MP4 lasts as long as its GIF would: 2 s.
        let vfr = try Self.probe(dir.appendingPathComponent("out/vfr.mp4"))
        #expect(abs(Double(vfr["duration"] ?? "0")! - 2.0) < 0.001, "\(vfr)")
    }

    @Test func rotationAndAlphaCarryOver() throws {
        let dir = Fixture.scratchDirectory()
        #expect(try CLI.run(["gif", Fixture.url("video/rotated90.mov").path, "-o", "r.mp4"], in: dir).status == 0)
        let rotated = try Self.probe(dir.appendingPathComponent("r.mp4"))
        #expect(Int(rotated["height"] ?? "0")! > Int(rotated["width"] ?? "0")!, "upright: \(rotated)")
        #expect(try CLI.run(["gif", Fixture.url("video/alpha.mov").path, "-o", "t.webp"], in: dir).status == 0)
        let header = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.webp")).prefix(21))
        #expect(String(decoding: header[12..<16], as: UTF8.self) == "VP8X" && header[20] & 0x10 != 0, "alpha flag")
    }

    @Test(arguments: [
        ["-o", "a.gif", "-o", "b.gif"], ["-o", "a.gif", "-o", "a.png"], ["--format", "gif,avi"], ["--format", "webp", "-o", "x.gif"],
        ["-o", "x.webp", "--max-bytes", "1MB"], ["--crf", "60", "-o", "x.mp4"], ["-o", "a.gif", "-o", "a.webp", "--format", "gif"],
        // An option for a format the run does not write (it was taken silently).
        ["-o", "a.gif", "--crf", "18"], ["-o", "a.gif", "--lossless"], ["-o", "a.mp4", "--colors", "64"], ["--format", "webp", "--dither", "none"],
        ["-o", "a.webp", "--lossy", "40"], ["-o", "a.mp4", "--palette", "global"], ["-o", "a.mp4", "-o", "a.webp", "--threshold", "0"],
    ])
    func badOutputChoicesAreUsageErrors(_ options: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Self.clip.path] + options, in: dir)
        #expect(run.status == 2, "\(options): \(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(CLI.files(in: dir).isEmpty)
    }

    /// WebP and MP4 outputs refused for their size (tall_png.mkv is 16x17000: WebP frames are at
    /// most 16383 pixels a side, x264's 16384; H.264 needs 2x2) said "clipkit: a.webp: cannot
    /// write output: ...", naming the output where every other failure names the input; so did
    /// any other failure met while writing them (--max-output). Now the input is named, the
    /// output first in the reason, and nothing is written; the --size the message gives fits.
    @Test func sizeRefusalsNameTheInput() throws {
        let dir = Fixture.scratchDirectory()
        let tall = Fixture.url("video/tall_png.mkv").path
        for (format, most) in [("webp", 16383), ("mp4", 16384)] {
            let run = try CLI.run(["gif", tall, "-o", "a.gif", "-o", "a.\(format)"], in: dir)
            #expect(run.status == 1)
            #expect(run.stderrLines.count == 1 && run.stderr.hasPrefix("clipkit: \(tall): cannot write output: ")
                    && run.stderr.contains("/a.\(format): \(format == "webp" ? "WebP" : "MP4") frames are at most \(most) pixels wide and high, "
                                           + "got 16x17000 (--size \(most)x\(most) fits them)\n"), "\(run.stderr)")
            #expect(CLI.files(in: dir).isEmpty)
        }
        let counter = Fixture.url("video/counter.mp4").path
        let small = try CLI.run(["gif", counter, "-o", "b.gif", "-o", "b.mp4", "--width", "1"], in: dir)
        #expect(small.status == 1)
        #expect(small.stderrLines.count == 1 && small.stderr.hasPrefix("clipkit: \(counter): cannot write output: ")
                && small.stderr.contains("/b.mp4: MP4 needs frames of at least 2x2 pixels, got 1x1\n"), "\(small.stderr)")
        let budget = try CLI.run(["gif", Self.clip.path, "-o", "c.webp", "--max-output", "3000"], in: dir)
        #expect(budget.status == 1)
        #expect(budget.stderrLines.count == 1 && budget.stderr.hasPrefix("clipkit: \(Self.clip.path): ")
                && budget.stderr.contains("/c.webp: output size exceeds the limit of 3000 bytes (raise it with --max-output)"), "\(budget.stderr)")
        #expect(CLI.files(in: dir).isEmpty)

        let fitted = try CLI.run(["gif", tall, "-o", "a.gif", "-o", "a.webp", "-o", "a.mp4", "--size", "16383x16383"], in: dir)
        #expect(fitted.status == 0, "\(fitted.stderr)")
        // VP8X: canvas width - 1 and height - 1 in 24 bits each.
        let header = [UInt8](try Data(contentsOf: dir.appendingPathComponent("a.webp")).prefix(30))
        let side = { (at: Int) in 1 + (Int(header[at]) | Int(header[at + 1]) << 8 | Int(header[at + 2]) << 16) }
        #expect(String(decoding: header[12..<16], as: UTF8.self) == "VP8X" && side(24) == 15 && side(27) == 16383)
        #expect(try Self.webp(dir.appendingPathComponent("a.webp")).durations == [200, 200])
        let mp4 = try Self.probe(dir.appendingPathComponent("a.mp4"))
        #expect(mp4["width"] == "14" && mp4["height"] == "16382" && mp4["nb_read_frames"] == "4" && mp4["duration"] == "0.400000", "\(mp4)")
    }

    @Test func aFailureLeavesNoneOfTheOutputs() throws {
        let dir = Fixture.scratchDirectory()
        // The GIF cannot reach the quality floor: the finished WebP and MP4 are not kept either.
        let run = try CLI.run(["gif", Self.clip.path, "-o", "a.gif", "-o", "a.webp", "-o", "a.mp4", "--lossy", "900", "--min-quality", "95"], in: dir)
        #expect(run.status == 1)
        #expect(CLI.files(in: dir).isEmpty, "\(CLI.files(in: dir))")
        // A bad input: one line, nothing written.
        let bad = try CLI.run(["gif", Fixture.url("video/not_video.mp4").path, "-o", "n.webp", "-o", "n.mp4"], in: dir)
        #expect(bad.status == 1 && bad.stderrLines.count == 1, "\(bad.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }
}
