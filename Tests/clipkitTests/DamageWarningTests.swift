// Video read around damage or cut short says so: one warning per kind on stderr and in --json's
// `warnings`, the same every run, and none for whole files (audio longer than the video included).
import Foundation
import Testing
import TestSupport
import ClipKit
import CPNG

@Suite struct DamageWarningTests {
    /// The `warnings` of the one --json line of `run`.
    func warnings(_ run: CLI.Result) throws -> [String] {
        let line = try #require(try Decoded.jsonLines(run.stdout).first, "\(run.stdout)\n\(run.stderr)")
        #expect(line["status"] as? String == "ok", "\(line)")
        return try #require(line["warnings"] as? [String], "\(line)")
    }

    /// A Matroska file cut to 60% (the header still says 2 s, no packet of either stream passes
    /// 1.12 s) and an MP4 cut likewise: every command that reads to the end says where the frames
    /// end, and the GIF is what decoded. It said nothing, exit 0, as a shorter GIF.
    @Test func aFileCutShortSaysSo() throws {
        let dir = Fixture.scratchDirectory()
        let mkv = Fixture.url("video/cut_short.mkv").path
        let note = "the frames end at 1.120s, short of the 2.000s the header states: the file may be cut short"
        let gif = try CLI.run(["gif", mkv, "-o", "a.gif", "--json"], in: dir)
        #expect(try gif.status == 0 && warnings(gif) == [note])
        #expect(gif.stderrLines.contains { $0.hasPrefix("clipkit: warning: ") && $0.hasSuffix("cut_short.mkv: " + note) }, "\(gif.stderr)")
        #expect(try Decoded.gif(dir.appendingPathComponent("a.gif"), keep: 0).delays.reduce(0, +) == 112)
        // The passes of --max-bytes after the first replay its pictures: the warning comes with them.
        let fit = try CLI.run(["gif", mkv, "-o", "b.gif", "--max-bytes", "900", "--json"], in: dir)
        #expect(try fit.status == 0 && warnings(fit) == [note], "\(fit.stderr)")
        for command in [["explode", mkv, "-o", "e"], ["storyboard", mkv, "-o", "s", "--interval", "0.5"]] {
            let run = try CLI.run(command + ["--json"], in: dir)
            #expect(try run.status == 0 && warnings(run) == [note], "\(command[0]): \(run.stderr)")
        }
        // `info` reads the packets, not the pictures: where they end.
        let info = try CLI.run(["info", mkv, "--json"], in: dir)
        #expect(try warnings(info) == ["the packets end at 1.120s, short of the 2.000s the header states: the file may be cut short"])
        let text = try CLI.run(["info", mkv], in: dir)
        #expect(text.stdout.contains("\n  warning: the packets end at 1.120s, short of the 2.000s the header states"), "\(text.stdout)")
        let mp4 = try CLI.run(["gif", Fixture.url("video/truncated_faststart.mp4").path, "-o", "c.gif", "--json"], in: dir)
        #expect(try warnings(mp4).contains("the frames end at 0.960s, short of the 2.000s the header states: the file may be cut short"))
    }

    /// Whole files say nothing: audio 2 s longer than the video (the header's length is the
    /// audio's, and its packets reach it), a 40 ms longer one, video that starts 1.5 s after the
    /// audio (the container's 2.5 s count from the audio's start: the video's 1 s is whole), an
    /// edit list, VFR, B-frames.
    @Test func wholeFilesSayNothing() throws {
        let dir = Fixture.scratchDirectory()
        for name in ["audio_tail.mkv", "audio_longer.mkv", "video_late.mkv", "counter.mp4", "two_edits.mp4", "vfr.mkv", "nut_bframes.nut", "fps60.mkv"] {
            let run = try CLI.run(["gif", Fixture.url("video/\(name)").path, "-o", "w.gif", "--force", "--json"], in: dir)
            #expect(try run.status == 0 && run.stderr.isEmpty && warnings(run).isEmpty, "\(name): \(run.stderr)")
            let info = try CLI.run(["info", Fixture.url("video/\(name)").path, "--json"], in: dir)
            #expect(try warnings(info).isEmpty, "info \(name)")
        }
        let tail = try CLI.run(["gif", Fixture.url("video/audio_tail.mkv").path, "-o", "t.gif", "--force"], in: dir)
        #expect(try Decoded.gif(dir.appendingPathComponent("t.gif"), keep: 0).delays.reduce(0, +) == 100, "\(tail.stderr)")
    }

    /// `--at` a percentage of a Matroska file whose audio runs on past its video (1 s of counter
    /// frames, 3 s of audio; the header's 3 s is the container's): a share of the video's 1 s,
    /// read from the file's tail, and nothing said. 20% took the frame at 0.6 s (60% of the
    /// video), 50% and 100% said "the frames end at 1.000s, short of the duration the header
    /// states"; a WebM-like file whose audio is 40 ms longer said so at 100%. A file cut short
    /// still says so (`aFileCutShortSaysSo`).
    @Test func percentagesAreOfTheVideoWhenItsAudioRunsOn() throws {
        let dir = Fixture.scratchDirectory()
        let tail = Fixture.url("video/audio_tail.mkv").path
        for (at, counter) in [("20%", 5), ("50%", 12), ("100%", 24)] {
            let run = try CLI.run(["thumb", tail, "--at", at, "--size", "0", "-o", "t.png", "--force"], in: dir)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(at): \(run.stderr)")
            #expect(try SeekExactnessTests.counter(PNGReader.read(dir.appendingPathComponent("t.png"))) == counter, "\(at)")
        }
        let longer = try CLI.run(["thumb", Fixture.url("video/audio_longer.mkv").path, "--at", "100%", "-o", "l.png"], in: dir)
        #expect(longer.status == 0 && longer.stderr.isEmpty, "\(longer.stderr)")
        let board = try CLI.run(["storyboard", tail, "-o", "s", "--interval", "0.25", "--json"], in: dir)
        #expect(try board.status == 0 && warnings(board).isEmpty, "\(board.stderr)")
        // `info` gives the video's length too (it said the container's 3.000 s, and 2.500 s for the
        // video that starts 1.5 s after its audio).
        for (name, length) in [("audio_tail.mkv", 1000), ("video_late.mkv", 1000), ("audio_longer.mkv", 1000)] {
            let info = try CLI.run(["info", Fixture.url("video/\(name)").path, "--json"], in: dir)
            let line = try #require(try Decoded.jsonLines(info.stdout).first)
            #expect(line["duration_ms"] as? Int == length, "\(name): \(line["duration_ms"] ?? "nil")")
        }
        let cut = try CLI.run(["thumb", Fixture.url("video/cut_short.mkv").path, "--at", "90%", "-o", "c.png"], in: dir)
        #expect(cut.stderr.contains("the frames end at 1.120s, short of the duration the header states; --at 90% took the frame at 1.008s"), "\(cut.stderr)")
    }

    /// A YUV4MPEG file cut 1,000 bytes into its tenth picture: libavformat drops the part and
    /// says nothing, and the format states no length; the file's own bytes show it (a FRAME line
    /// where the cut picture starts). It converted to nine frames with nothing said. Pictures
    /// with parameters on their FRAME lines, which do not fall at fixed places, say nothing.
    @Test func aYUV4MPEGFileCutInsideAPictureSaysSo() throws {
        try expectCutFileSaysSo(cut: "cut_picture.y4m", whole: "frame_params.y4m",
                                     note: "the file ends inside a picture (1000 of its 4608 bytes), which is left out: it may be cut short")
    }

    /// A Matroska file cut after its first frame: one frame decodes, which the single-picture
    /// rule (a title card is shown for the whole clip) stretched to the 2 s the header states,
    /// with no word of the cut (`info` said it). The GIF is the one frame, and says so.
    /// A Motion JPEG stream whose last picture is cut short (made here: still.jpg three times
    /// whole, then its first half) decodes without an error, the rest of the picture left flat:
    /// gif and `thumb --at 100%` say so; the whole stream, and a thumbnail of a whole picture, say nothing.
    @Test func aMotionJPEGPictureCutShortSaysSo() throws {
        let dir = Fixture.scratchDirectory()
        let jpeg = try Data(contentsOf: Fixture.url("video/still.jpg"))
        try (jpeg + jpeg + jpeg + jpeg.prefix(jpeg.count / 2)).write(to: dir.appendingPathComponent("cut.mjpeg"))
        try (jpeg + jpeg + jpeg + jpeg).write(to: dir.appendingPathComponent("whole.mjpeg"))
        let note = "damaged video data: 1 picture cut short (a JPEG picture without its end marker), shown as far as it goes"
        for (arguments, expected) in [(["gif", "cut.mjpeg", "--fps", "25", "-o", "a.gif"], [note]), (["thumb", "cut.mjpeg", "--at", "100%", "-o", "a.png"], [note]),
                                      (["thumb", "cut.mjpeg", "-o", "b.png"], []), (["gif", "whole.mjpeg", "--fps", "25", "-o", "w.gif"], [])] {
            let run = try CLI.run(arguments + ["--json"], in: dir)
            #expect(try run.status == 0 && warnings(run) == expected, "\(arguments): \(run.stderr)")
        }
        // Three whole pictures alike (one image, 12 cs), then the cut one, which differs.
        #expect(try Decoded.gif(dir.appendingPathComponent("a.gif"), keep: 0).delays == [12, 4])
    }

    /// Reading that stops at an error before the end of the file says so: an animated PNG whose
    /// third frame control chunk places the frame outside the picture (made here from
    /// anim_apng.png, its CRC mended) gave a 2-frame GIF of a 4-frame animation, exit 0, nothing
    /// said (ffmpeg logs the error). The whole file says nothing.
    @Test func readingStoppedAtAnErrorSaysSo() throws {
        let dir = Fixture.scratchDirectory()
        var png = [UInt8](try Data(contentsOf: Fixture.url("video/anim_apng.png")))
        // Chunks from byte 8: length, type, data, CRC. The third fcTL's x offset (data bytes 12-15).
        var at = 8, controls = 0
        while at + 8 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            if png[(at + 4)..<(at + 8)].elementsEqual("fcTL".utf8) {
                controls += 1
                if controls == 3 {
                    png.replaceSubrange((at + 20)..<(at + 24), with: [0, 0, 0x03, 0xE8])  // x = 1000
                    let crc = UInt32(Array(png[(at + 4)..<(at + 8 + length)]).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
                    png.replaceSubrange((at + 8 + length)..<(at + 12 + length), with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
                }
            }
            at += 12 + length
        }
        #expect(controls == 4)
        try Data(png).write(to: dir.appendingPathComponent("outside.png"))
        let cut = try CLI.run(["gif", "outside.png", "-o", "a.gif", "--json"], in: dir)
        let said = try warnings(cut)
        #expect(said.count == 1 && said[0].hasPrefix("reading stopped at ") && said[0].hasSuffix("): what follows in the file is left out"), "\(said)")
        #expect(try Decoded.gif(dir.appendingPathComponent("a.gif"), keep: 0).delays.count == 2)
        let whole = try CLI.run(["gif", Fixture.url("video/anim_apng.png").path, "-o", "w.gif", "--json"], in: dir)
        #expect(try warnings(whole).isEmpty)
    }

    @Test func aFileCutAfterItsFirstFrameIsNoStill() throws {
        let dir = Fixture.scratchDirectory()
        let cut = Fixture.url("video/cut_first_frame.mkv").path
        let gif = try CLI.run(["gif", cut, "-o", "c.gif", "--json"], in: dir)
        #expect(try gif.status == 0 && warnings(gif) == ["the frames end at 0.040s, short of the 2.000s the header states: the file may be cut short"],
                "\(gif.stderr)")
        #expect(try Decoded.gif(dir.appendingPathComponent("c.gif"), keep: 0).delays == [4])
    }

    /// A live WebM (no duration, as a browser's MediaRecorder writes it) less its last 10 bytes:
    /// no header length to compare with, so it converted short with nothing said; Matroska's
    /// demuxer logs that the file ended inside an element, and clipkit says so. The whole file,
    /// and a Matroska file with a length (its own warning, with times), are as they were.
    @Test func aLiveWebMCutInsideABlockSaysSo() throws {
        try expectCutFileSaysSo(cut: "live_cut.webm", whole: "live_whole.webm",
                                     note: "the file ends inside a Matroska element, which is left out: it may be cut short")
        let dir = Fixture.scratchDirectory()
        let stated = try CLI.run(["gif", Fixture.url("video/cut_first_frame.mkv").path, "-o", "s.gif", "--json"], in: dir)
        #expect(try warnings(stated).first?.hasPrefix("the frames end at") == true, "\(stated.stderr)")
    }

    /// An Ogg file (Theora, a frame a page) less its last 10 bytes: libavformat drops the cut
    /// page and says nothing, and Ogg states no length (ffmpeg says nothing either); the pages'
    /// own sizes show it. The whole file says nothing.
    @Test func anOggFileCutInsideAPageSaysSo() throws {
        try expectCutFileSaysSo(cut: "cut_page.ogv", whole: "whole_pages.ogv",
                                     note: "the file ends inside an Ogg page (39 of its 49 bytes), which is left out: it may be cut short")
    }

    /// A fixture of 10 counter frames at 25 fps cut inside its last picture (`cut`), and the
    /// same whole (`whole`): the cut one converts to 0.36 s with `note` (once on stderr, in the
    /// JSON and in `info`), the whole one to 0.4 s with nothing said.
    func expectCutFileSaysSo(cut: String, whole: String, note: String) throws {
        let dir = Fixture.scratchDirectory("cut-\(cut)")
        let cut = Fixture.url("video/\(cut)").path
        let gif = try CLI.run(["gif", cut, "-o", "c.gif", "--json"], in: dir)
        #expect(try gif.status == 0 && warnings(gif) == [note], "\(gif.stderr)")
        #expect(gif.stderrLines == ["clipkit: warning: \(cut): \(note)"], "\(gif.stderr)")
        #expect(try Decoded.gif(dir.appendingPathComponent("c.gif"), keep: 0).delays.reduce(0, +) == 36)
        #expect(try warnings(CLI.run(["info", cut, "--json"], in: dir)) == [note])
        let whole = Fixture.url("video/\(whole)").path
        let full = try CLI.run(["gif", whole, "-o", "w.gif", "--json"], in: dir)
        #expect(try full.status == 0 && warnings(full).isEmpty && full.stderr.isEmpty, "\(full.stderr)")
        #expect(try Decoded.gif(dir.appendingPathComponent("w.gif"), keep: 0).delays.reduce(0, +) == 40)
        #expect(try warnings(CLI.run(["info", whole, "--json"], in: dir)).isEmpty)
    }

    /// Damage in the data: pictures the decoder conceals (counted on the one decoder thread the
    /// job runs again on, so the count is the same every run) and packets it cannot decode.
    @Test func damageIsCountedTheSameEveryRun() throws {
        let dir = Fixture.scratchDirectory()
        let flipped = Fixture.url("hostile/h264_flipped_64.h264").path
        var seen: Set<[String]> = []
        for run in 0..<3 {
            let gif = try CLI.run(["gif", flipped, "-o", "f\(run).gif", "--json"], in: dir)
            seen.insert(try warnings(gif))
        }
        #expect(seen.count == 1, "\(seen)")
        let only = try #require(seen.first?.first)
        #expect(only.hasPrefix("damaged video data: ") && only.contains("pictures decoded with errors, shown as the decoder concealed them"), "\(only)")
        let raw = try CLI.run(["gif", Fixture.url("video/palette_raw_cut.avi").path, "-o", "r.gif", "--json"], in: dir)
        #expect(try warnings(raw) == ["damaged video data: 1 packet could not be decoded (a raw picture of 776 bytes, 1536 needed), the frame before left on screen"])
    }

    /// Files cut before anything can be read say why, as damaged files: an MP4 whose index was
    /// to come after the media data, a Matroska file cut inside its headers. They were "not a
    /// video or image file clipkit can read (Invalid data found when processing input)", and
    /// "(Input/output error)".
    @Test func filesCutBeforeTheirIndexSayWhy() throws {
        let dir = Fixture.scratchDirectory()
        let cases = [("video/truncated.mp4", "damaged file: an MP4/MOV without its index (no moov box after the media data)"),
                     ("bad/trunc_mkv_00064.mkv", "damaged file: the file ends inside its headers (Input/output error): cut short"),
                     ("bad/trunc_mkv_00484.mkv", "damaged file: the file ends inside its headers (End of file): cut short")]
        for (name, message) in cases {
            for command in ["info", "gif"] {
                let run = try CLI.run([command, Fixture.url(name).path, "-o", "x.gif"].prefix(command == "info" ? 2 : 4).map { $0 }, in: dir)
                #expect(run.status == 1 && run.stderrLines.count == 1 && run.stderr.contains(message), "\(command) \(name): \(run.stderr)")
            }
        }
    }
}
