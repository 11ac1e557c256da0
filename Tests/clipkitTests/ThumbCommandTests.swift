// `clipkit thumb` as a user runs it: output names, batches, exit codes, one-line errors, no stray files.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ThumbCommandTests {
    @Test func writesBesideTheCurrentDirectoryAndIntoDirectories() throws {
        let dir = Fixture.scratchDirectory()
        let single = try CLI.run(["thumb", Fixture.url("video/rotated90.mov").path], in: dir)
        #expect(single.status == 0, "\(single.stderr)")
        let image = try PNGReader.read(dir.appendingPathComponent("rotated90.png"))
        #expect(image.width == 240 && image.height == 320)

        let batch = try CLI.run(["thumb", Fixture.url("video/counter.mp4").path, Fixture.url("video/vp9.webm").path,
                                 "-o", "previews/", "--width", "80"], in: dir)
        #expect(batch.status == 0)
        #expect(CLI.files(in: dir.appendingPathComponent("previews")) == ["counter.png", "vp9.png"])
        #expect(try PNGReader.read(dir.appendingPathComponent("previews/counter.png")).width == 80)

        let named = try CLI.run(["thumb", Fixture.url("video/counter.mp4").path, "--at", "00:00:02.5", "-o", "poster.png"], in: dir)
        #expect(named.status == 0)
        let poster = try PNGReader.read(dir.appendingPathComponent("poster.png"))
        #expect(abs(Int(poster.pixel(x: 5, y: 5).r) - (8 + 16 * (75 % 16))) <= 6)
    }

    /// An H.264 stream whose coded 96x64 picture is cropped 16 columns from the left, 6 rows from
    /// the top, 4 and 2 from the right and bottom (a flat green border around a 76x56 picture
    /// with no green at its left edge). libavcodec applied the left crop only as far as kept
    /// the planes aligned, so none of it: the thumbnail came out 92 wide with the green strip at
    /// its left, where `info` says 76, and the GIF's frames squeezed the 92 columns into 76.
    @Test func aStreamCroppedFromTheLeftIsCroppedExactly() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/crop_left.mp4").path
        func greenShare(_ image: RGBAImage, columns: Range<Int>, rows: Range<Int>) -> Double {
            var green = 0
            for y in rows { for x in columns {
                let p = image.pixel(x: x, y: y)
                if p.g > 200 && p.r < 60 && p.b < 60 { green += 1 }
            } }
            return Double(green) / Double(columns.count * rows.count)
        }
        let thumb = try CLI.run(["thumb", clip, "--size", "0", "-o", "t.png"], in: dir)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let poster = try PNGReader.read(dir.appendingPathComponent("t.png"))
        #expect(poster.width == 76 && poster.height == 56)
        // No green column at the left; the top row is the picture's (some of it green), not the border.
        #expect(greenShare(poster, columns: 0..<4, rows: 0..<56) == 0 && greenShare(poster, columns: 0..<76, rows: 0..<1) < 0.5)
        let gif = try CLI.run(["gif", clip, "--size", "0", "-o", "g.gif"], in: dir)
        #expect(gif.status == 0, "\(gif.stderr)")
        let frame = try #require(Decoded.gif(dir.appendingPathComponent("g.gif"), keep: 1).canvases.first)
        #expect(frame.width == 76 && frame.height == 56)
        #expect(greenShare(frame, columns: 0..<4, rows: 0..<56) == 0)
        #expect(try CLI.run(["info", clip], in: dir).stdout.contains("76x56"))
    }

    /// A thumbnail named .jpg or .jpeg is a JPEG, as ffmpeg and ffmpegthumbnailer write it (it
    /// was PNG bytes under a .jpg name): the same picture as the PNG within JPEG's loss, its
    /// fingerprint in a comment segment, so a rerun finds it up to date. Directories stay PNG.
    /// A time past the end names the time, not an option the command does not have: `thumb
    /// --at 5` said "start 5.000s is past the end" (`--start` is gif's).
    @Test func aTimePastTheEndIsSaidAsTheTime() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/counter.mp4").path
        let thumb = try CLI.run(["thumb", clip, "--at", "5", "-o", "t.png"], in: dir)
        #expect(thumb.status == 1 && thumb.stderrLines == ["clipkit: \(clip): 5.000s is past the end of the clip (duration 4.000s)"], "\(thumb.stderr)")
        let gif = try CLI.run(["gif", clip, "--start", "5", "-o", "g.gif"], in: dir)
        #expect(gif.status == 1 && gif.stderr.contains("\(clip): 5.000s is past the end of the clip (duration 4.000s)"), "\(gif.stderr)")
    }

    @Test func aThumbnailNamedJPEGIsAJPEG() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/counter.mp4").path
        for name in ["poster.jpg", "Poster.JPEG"] {
            let run = try CLI.run(["thumb", clip, "--at", "2.5", "-o", name], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            let url = dir.appendingPathComponent(name)
            let bytes = try [UInt8](Data(contentsOf: url))
            #expect(bytes.prefix(2) == [0xFF, 0xD8] && bytes.suffix(2) == [0xFF, 0xD9])
            #expect(Fingerprint.recorded(in: url) != nil)
            // Decoded again (libavcodec's mjpeg, through the reader): counter 75, as the PNG shows it.
            let frames = try VideoReader(url: url).frames(options: FrameReadOptions(size: .original))
            let picture = try #require(try frames.next()).image
            #expect(picture.width == 160 && picture.height == 120)
            #expect(abs(Int(picture.pixel(x: 80, y: 60).r) - (8 + 16 * (75 % 16))) <= 6, "\(picture.pixel(x: 80, y: 60))")
            let again = try CLI.run(["thumb", clip, "--at", "2.5", "-o", name], in: dir)
            #expect(again.status == 0 && again.stderr.contains("1 skipped (up to date"), "\(again.stderr)")
        }
        // A PNG of the same frame is another output (the format is part of the fingerprint).
        #expect(try CLI.run(["thumb", clip, "--at", "2.5", "-o", "poster.png"], in: dir).status == 0)
        #expect(try PNGReader.read(dir.appendingPathComponent("poster.png")).width == 160)
        #expect(Fingerprint.recorded(in: dir.appendingPathComponent("poster.png")) != Fingerprint.recorded(in: dir.appendingPathComponent("poster.jpg")))
    }

    @Test func badInputsFailAloneWithOneLine() throws {
        let dir = Fixture.scratchDirectory()
        let bad = ["audio_only.m4a", "not_video.mp4", "truncated.mp4", "missing.mp4"].map { Fixture.url("video/\($0)").path }
        let result = try CLI.run(["thumb"] + bad + [Fixture.url("video/counter.mp4").path, "-o", "out/"], in: dir)
        #expect(result.status == 1)
        #expect(result.stderrLines.filter { $0.hasPrefix("clipkit: /") }.count == 4)
        #expect(result.stderrLines.last == "clipkit: 1 done, 4 failed")
        #expect(result.stderr.contains("audio_only.m4a: no video stream"))
        #expect(result.stderr.contains("missing.mp4: no such file"))
        #expect(CLI.files(in: dir.appendingPathComponent("out")) == ["counter.png"], "only the good input, no temp files")

        let empty = dir.appendingPathComponent("empty.mp4")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let directory = try CLI.run(["thumb", empty.path], in: dir)
        #expect(directory.status == 1 && directory.stderr.contains("no video or GIF files"))
    }

    @Test func unwritableOutputsLeaveNothing() throws {
        let dir = Fixture.scratchDirectory()
        try Data("x".utf8).write(to: dir.appendingPathComponent("afile"))
        let underFile = try CLI.run(["thumb", Fixture.url("video/counter.mp4").path, "-o", "afile/t.png"], in: dir)
        #expect(underFile.status == 1)
        #expect(underFile.stderrLines.count == 1)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub.png"), withIntermediateDirectories: true)
        let onDirectory = try CLI.run(["thumb", Fixture.url("video/counter.mp4").path, "-o", "sub.png/"], in: dir)
        #expect(onDirectory.status == 0, "a directory target takes NAME.png inside it")
        #expect(CLI.files(in: dir) == ["afile", "sub.png", "sub.png/counter.png"])
    }

    @Test func usageErrorsExitTwo() throws {
        let dir = Fixture.scratchDirectory()
        for arguments in [["--size", "abc"], ["--at", "1:2:3:4"], ["--at", "150%"], ["--width", "0"], ["--width", "10", "--height", "10"], ["--bogus"]] {
            let result = try CLI.run(["thumb", Fixture.url("video/counter.mp4").path] + arguments, in: dir)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
        let two = try CLI.run(["thumb", Fixture.url("video/counter.mp4").path, Fixture.url("video/vp9.webm").path, "-o", "one.png"], in: dir)
        #expect(two.status == 2)
        #expect(CLI.files(in: dir).isEmpty)
    }
}
