// `clipkit info`: facts about videos and GIFs, for people and as JSON.
import Foundation
import Testing
import TestSupport
import ClipKit

@Suite struct InfoCommandTests {
    /// A GIF `gif`, `thumb` and `explode` refuse, `info` refuses with the same line: no images
    /// at all, or a first image whose LZW code size cannot be decoded (0, 12, 255). `info` read
    /// the blocks alone and said "0 frames" or "1 frames", exit 0.
    @Test func refusesTheGIFsTheOtherCommandsRefuse() throws {
        let dir = Fixture.scratchDirectory()
        // An 8x8 GIF of one image: header, screen, a 2-colour table, the image's descriptor, its data.
        let screen: [UInt8] = Array("GIF89a".utf8) + [8, 0, 8, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        let image: [UInt8] = [0x2C, 0, 0, 0, 0, 8, 0, 8, 0, 0]
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        let cases = [
            (try write("none.gif", screen + [0x3B]), "no frames: the GIF has no images"),
            (try write("size0.gif", screen + image + [0, 2, 0x4C, 0x01, 0, 0x3B]), "damaged file: image 0 has an invalid LZW code size 0"),
            (try write("size12.gif", screen + image + [12, 2, 0x4C, 0x01, 0, 0x3B]), "damaged file: image 0 has an invalid LZW code size 12"),
        ]
        for (path, reason) in cases {
            for command in [["info", path], ["gif", path, "-o", "o.gif", "--force"]] {
                let run = try CLI.run(command, in: dir)
                #expect(run.status == 1 && run.stderr == "clipkit: \(path): \(reason)\n", "\(command): \(run.stderr)")
            }
        }
    }

    @Test func reportsVideoAndGIFFacts() throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run(["info", "--json", Fixture.url("video/rotated90.mov").path, Fixture.url("video/vfr.mkv").path,
                                  Fixture.url("gif-test-suite/gifs/animated_noloop.gif").path], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(objects.count == 3)
        #expect(objects[0]["width"] as? Int == 240 && objects[0]["height"] as? Int == 320)
        #expect(objects[0]["rotation"] as? Int == 90 && objects[0]["coded_width"] as? Int == 320)
        #expect(objects[0]["frame_count"] as? Int == 30 && objects[0]["variable_frame_rate"] as? Bool == false)
        #expect(objects[1]["variable_frame_rate"] as? Bool == true && objects[1]["duration_ms"] as? Int == 2000)
        #expect(objects[0]["has_alpha"] as? Bool == false)
        #expect(objects[2]["kind"] as? String == "gif" && objects[2]["loop_count"] is NSNull)
        #expect(objects[2]["frame_count"] as? Int == 4)

        let alpha = try CLI.run(["info", "--json", Fixture.url("video/alpha.mov").path], in: dir)
        #expect(alpha.stdout.contains("\"has_alpha\":true"), "\(alpha.stdout)")

        let text = try CLI.run(["info", Fixture.url("video/hevc10.mp4").path, Fixture.url("video/audio_only.m4a").path], in: dir)
        #expect(text.status == 1)
        #expect(text.stdout.contains("hevc") && text.stdout.contains("10 bit"))
        #expect(text.stderr.contains("no video stream"))

        // An animated WebP (which FFmpeg 5.1 cannot decode) is refused as what it is, not as damaged.
        let webp = Fixture.url("video/anim.webp").path
        for command in [["info", webp], ["gif", webp, "-o", "webp.gif"], ["thumb", webp, "-o", "webp.png"]] {
            let run = try CLI.run(command, in: dir)
            let lines = run.stderr.split(separator: "\n")
            #expect(run.status == 1 && lines.count == 1 && lines[0].contains("\(webp): not a video or image file clipkit can read (an animated WebP"),
                    "\(command[0]): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("webp.gif").path))

        // A directory: every media file in it (and below, with -r), found by content: the 13 GIFs
        // and the 46 reference PNGs (still images libavformat reads).
        let tree = try CLI.run(["info", "--json", "-r", Fixture.url("gif-test-suite").path], in: dir)
        #expect(tree.status == 0)
        let lines = tree.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("\"kind\":\"gif\"") }.count == 13)
        #expect(lines.count == 59)
    }

    /// Packets are not frames: an MP4 cut with -ss -c copy has 90 packets, of which a full
    /// decode (and ffprobe -count_frames) shows 87. --count-frames decodes; otherwise the count
    /// is marked as an estimate.
    /// Mirroring display matrices, made here from rotated180.mov (stored quadrants: red, green
    /// over blue, white) by rewriting its track matrix: the line says the mirror in words (a plain
    /// left-to-right mirror read "rotated 180, mirrored"), the JSON keeps ffprobe's angle, and the
    /// thumbnail is the picture the matrix asks for.
    @Test func mirroredMatricesAreSaidInWordsAndDrawnSo() throws {
        let dir = Fixture.scratchDirectory()
        var movie = try Data(contentsOf: Fixture.url("video/rotated180.mov"))
        let tkhd = try #require(movie.range(of: Data("tkhd".utf8))).lowerBound - movie.startIndex
        let matrix = tkhd + 4 + 4 + 4 * 5 + 8 + 8  // version/flags, times, id, reserved, duration; reserved; layer..volume
        for (name, entries, words, angle, corner) in [
            ("hflip", (-1, 0, 0, 1), "320x240 (stored 320x240, mirrored left to right)", 180, "green"),
            ("vflip", (1, 0, 0, -1), "320x240 (stored 320x240, flipped top to bottom)", 0, "blue"),
            ("transpose", (0, 1, 1, 0), "240x320 (stored 320x240, mirrored left to right, then rotated 270)", 90, "red"),
        ] {
            for (slot, value) in [(0, entries.0), (1, entries.1), (3, entries.2), (4, entries.3)] {
                let bits = UInt32(bitPattern: Int32(value * 65536)).bigEndian
                withUnsafeBytes(of: bits) { movie.replaceSubrange(movie.startIndex + matrix + slot * 4 ..< movie.startIndex + matrix + slot * 4 + 4, with: $0) }
            }
            let file = dir.appendingPathComponent("\(name).mov")
            try movie.write(to: file)
            let info = try CLI.run(["info", file.path], in: dir)
            #expect(info.status == 0 && info.stdout.contains(words), "\(name): \(info.stdout)")
            let json = try Decoded.jsonLines(try CLI.run(["info", "--json", file.path], in: dir).stdout)
            #expect(json.first?["rotation"] as? Int == angle && json.first?["mirrored"] as? Bool == true, "\(name): \(json)")
            #expect(try CLI.run(["thumb", file.path, "--size", "0", "-o", "\(name).png", "-q"], in: dir).status == 0)
            let p = try PNGReader.read(dir.appendingPathComponent("\(name).png")).pixel(x: 20, y: 20)
            let seen = p.r > 200 && p.g < 60 && p.b < 60 ? "red" : p.g > 200 && p.r < 60 && p.b < 60 ? "green" : p.b > 200 && p.r < 60 && p.g < 60 ? "blue" : "\(p)"
            #expect(seen == corner, "\(name): top-left is \(seen)")
        }
    }

    @Test func countFramesDecodes() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/seek_cut.mp4").path
        let quick = try CLI.run(["info", clip, "--json"], in: dir)
        #expect(quick.stdout.contains("\"frame_count\":90") && quick.stdout.contains("\"frame_count_exact\":false"), "\(quick.stdout)")
        let exact = try CLI.run(["info", clip, "--json", "--count-frames"], in: dir)
        #expect(exact.stdout.contains("\"frame_count\":87") && exact.stdout.contains("\"frame_count_exact\":true"), "\(exact.stdout)")
        // Cover art is no video; HDR colour metadata is reported.
        let hdr = try CLI.run(["info", Fixture.url("video/hdr10_pq.mp4").path, "--json"], in: dir)
        #expect(hdr.stdout.contains("\"color_transfer\":\"smpte2084\"") && hdr.stdout.contains("\"hdr\":true"), "\(hdr.stdout)")
        let anamorphic = try CLI.run(["info", Fixture.url("video/anamorphic.mp4").path, "--json"], in: dir)
        #expect(anamorphic.stdout.contains("\"sar\":\"16:9\"") && anamorphic.stdout.contains("\"width\":213"), "\(anamorphic.stdout)")
    }

    /// An MP4 cut with `-ss 1.3 -c copy` keeps the 33 pictures before the cut for decoding, marked
    /// to discard (the edit list): info measured 4.000 s from all 100 packets; ffprobe, the
    /// decode (67 frames) and the GIF of the clip say 2.7 s.
    @Test func editListDuration() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/cut_editlist.mp4").path
        for extra in [[], ["--count-frames"]] {
            let result = try CLI.run(["info", clip, "--json"] + extra, in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let info = try #require(try Decoded.jsonLines(result.stdout).first)
            #expect(info["duration_ms"] as? Int == 2700, "\(extra): \(result.stdout)")
            if !extra.isEmpty { #expect(info["frame_count"] as? Int == 67, "\(result.stdout)") }
        }
        let gif = dir.appendingPathComponent("cut.gif")
        let made = try CLI.run(["gif", clip, "-o", gif.path], in: dir)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try Decoded.gif(gif).delays.reduce(0, +) == 270)
    }
}
