// CI-native batches: outputs skipped by the fingerprint they record (not modification times),
// shards, scan errors for broken media, `-o` as a directory, JSON schema and reasons.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ContentSkipTests {
    /// One line of `--json`, as a dictionary.
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func statuses(_ stdout: String) throws -> [String: String] {
        var byName: [String: String] = [:]
        for object in try objects(stdout) {
            byName[URL(fileURLWithPath: object["input"] as! String).lastPathComponent] = object["status"] as? String
        }
        return byName
    }

    /// Copies `from` to `to` as a fresh checkout or cache restore does: new files, new times.
    func freshCopy(_ from: URL, to: URL) throws {
        try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: from.path) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: from.appendingPathComponent(name).path, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                try freshCopy(from.appendingPathComponent(name), to: to.appendingPathComponent(name))
            } else {
                try Data(contentsOf: from.appendingPathComponent(name)).write(to: to.appendingPathComponent(name))
            }
        }
    }

    func makeClips(in dir: URL, count: Int = 3) throws -> URL {
        let src = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let sources = ["counter.mp4", "motion.mp4", "vp9.webm"]
        for i in 0..<count {
            let name = sources[i % sources.count]
            let ext = (name as NSString).pathExtension
            try FileManager.default.copyItem(at: Fixture.url("video/\(name)"), to: src.appendingPathComponent("clip\(i).\(ext)"))
        }
        return src
    }

    @Test(arguments: [["thumb"], ["gif", "--fps", "5", "--width", "64"], ["explode", "--fps", "2"]])
    func cloneAndRerunSkipsByContent(_ command: [String]) throws {
        let dir = Fixture.scratchDirectory()
        _ = try makeClips(in: dir)
        let first = try CLI.run(command + ["src", "-o", "out", "--json"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try statuses(first.stdout).values.allSatisfy { $0 == "ok" })
        let made = CLI.files(in: dir.appendingPathComponent("out"))

        // A fresh clone of the inputs and a restored cache of the outputs: every file is new.
        try freshCopy(dir.appendingPathComponent("src"), to: dir.appendingPathComponent("clone/src"))
        try freshCopy(dir.appendingPathComponent("out"), to: dir.appendingPathComponent("clone/out"))
        let clone = dir.appendingPathComponent("clone")
        let rerun = try CLI.run(command + ["src", "-o", "out", "--json"], in: clone)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        for object in try objects(rerun.stdout) {
            #expect(object["status"] as? String == "skipped" && object["reason"] as? String == "up to date", "\(object)")
            #expect(object["error"] is NSNull && object["schema"] as? Int == 1)
        }
        #expect(rerun.stderr.contains("0 done, 3 skipped"), "\(rerun.stderr)")

        // One changed byte redoes that input only.
        let changed = clone.appendingPathComponent("src/clip1.mp4")
        let handle = try FileHandle(forWritingTo: changed)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let one = try CLI.run(command + ["src", "-o", "out", "--json"], in: clone)
        #expect(try statuses(one.stdout) == ["clip0.mp4": "skipped", "clip1.mp4": "ok", "clip2.webm": "skipped"], "\(one.stdout)")

        // A limit does not shape the output; a shaping option does.
        let timeout = try CLI.run(command + ["src", "-o", "out", "--json", "--timeout", "100", "--jobs", "1"], in: clone)
        #expect(try statuses(timeout.stdout).values.allSatisfy { $0 == "skipped" }, "\(timeout.stdout)")
        let shaping = command[0] == "explode" ? ["--fps", "3"] : ["--width", "48"]
        let reshaped = try CLI.run(command + ["src", "-o", "out", "--json"] + shaping, in: clone)
        #expect(try statuses(reshaped.stdout).values.allSatisfy { $0 == "ok" }, "\(reshaped.stdout)")

        // Nothing but the requested outputs beside them.
        let files = CLI.files(in: clone.appendingPathComponent("out"))
        #expect(files.allSatisfy { ($0.hasSuffix(".png") || $0.hasSuffix(".gif") || $0.hasSuffix(".frames") || $0.hasSuffix("/frames.json"))
            && !$0.hasPrefix(".") && !$0.contains("/.") }, "\(files)")
        #expect(made.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/.") }, "\(made)")
    }

    @Test func outputsRecordTheirFingerprint() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/counter.mp4")
        #expect(try CLI.run(["thumb", clip.path, "-o", "a.png"], in: dir).status == 0)
        #expect(try CLI.run(["gif", clip.path, "-o", "a.gif", "--fps", "5", "--poster", "p.png"], in: dir).status == 0)
        #expect(try CLI.run(["explode", clip.path, "-o", "a.frames", "--fps", "2"], in: dir).status == 0)
        let hash = try ContentHash.ofFile(clip)
        let thumb = Fingerprint(contentHash: hash, options: ThumbnailOptions().fingerprintOptions)
        #expect(Fingerprint.recorded(in: dir.appendingPathComponent("a.png")) == thumb)
        var gif = GIFOptions()
        gif.fps = 5
        let gifPrint = Fingerprint(contentHash: hash, options: gif.fingerprintOptions)
        #expect(Fingerprint.recorded(in: dir.appendingPathComponent("a.gif")) == gifPrint)
        #expect(Fingerprint.recorded(in: dir.appendingPathComponent("p.png")) == gifPrint)
        #expect(Fingerprint.recorded(in: dir.appendingPathComponent("a.frames")) != nil)
        // The outputs still decode (a second decoder: libpng and giflib) and are what they were.
        #expect(try PNGReader.read(dir.appendingPathComponent("a.png")).width == 160)
        #expect(try Decoded.gif(dir.appendingPathComponent("a.gif")).canvases.count > 1)
        // A poster missing makes the GIF not up to date.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("p.png"))
        let again = try CLI.run(["gif", clip.path, "-o", "a.gif", "--fps", "5", "--poster", "p.png", "--json"], in: dir)
        #expect(again.stdout.contains("\"status\":\"ok\""), "\(again.stdout)")
        // A file clipkit did not write records nothing.
        try Data("GIF89a".utf8).write(to: dir.appendingPathComponent("x.gif"))
        #expect(Fingerprint.recorded(in: dir.appendingPathComponent("x.gif")) == nil)
    }

    @Test func shardsPartitionTheInputs() throws {
        let dir = Fixture.scratchDirectory()
        let src = try makeClips(in: dir, count: 8)
        try FileManager.default.createDirectory(at: src.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixture.url("video/counter.mp4"), to: src.appendingPathComponent("sub/deep.mp4"))
        let all = try CLI.run(["info", "src", "-r", "--json"], in: dir)
        let everything = Set(try objects(all.stdout).map { $0["input"] as! String })
        #expect(everything.count == 9)
        var seen: [String] = []
        for index in 1...3 {
            let run = try CLI.run(["thumb", "src", "-r", "-o", "out", "--json", "--shard", "\(index)/3"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            let objects = try objects(run.stdout)
            #expect(objects.allSatisfy { $0["shard"] as? String == "\(index)/3" })
            seen += objects.map { $0["input"] as! String }
            let info = try CLI.run(["info", "src", "-r", "--json", "--shard", "\(index)/3"], in: dir)
            #expect(Set(try self.objects(info.stdout).map { $0["input"] as! String }) == Set(objects.map { $0["input"] as! String }))
        }
        #expect(seen.count == 9 && Set(seen) == everything, "each input in exactly one shard: \(seen)")
        #expect(CLI.files(in: dir.appendingPathComponent("out")).filter { $0.hasSuffix(".png") }.count == 9)
        for bad in ["0/3", "4/3", "1/0", "a/b", "1"] {
            #expect(try CLI.run(["thumb", "src", "--shard", bad], in: dir).status == 2, "\(bad)")
        }
    }

    /// Files libavformat's probe takes for media by content, but which hold no clip: gzip data
    /// (the `libgme` music format's, at the lowest score the probe accepts) and sound (a WAV).
    /// They are ignored with the rest, not errors that fail the batch; a clip without an
    /// extension is still an input.
    @Test func soundAndCompressedDataInAScanAreIgnored() throws {
        let dir = Fixture.scratchDirectory()
        let media = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixture.url("video/counter.mp4"), to: media.appendingPathComponent("good.mp4"))
        try FileManager.default.copyItem(at: Fixture.url("video/counter.mp4"), to: media.appendingPathComponent("recording"))
        // `echo hello | gzip -n`
        try Data([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0, 0x20, 0x30, 0x3a, 0x36,
                  0x06, 0, 0, 0]).write(to: media.appendingPathComponent("notes.txt.gz"))
        // A WAV: 8 kHz mono 16-bit, 0.1 s of a ramp.
        let samples = (0..<800).flatMap { i -> [UInt8] in let v = UInt16(truncatingIfNeeded: i * 40); return [UInt8(v & 0xff), UInt8(v >> 8)] }
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24 & 0xff)] }
        let wav = Array("RIFF".utf8) + le32(36 + samples.count) + Array("WAVEfmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(8000)
            + le32(16000) + [2, 0, 16, 0] + Array("data".utf8) + le32(samples.count) + samples
        try Data(wav).write(to: media.appendingPathComponent("sound.wav"))
        let run = try CLI.run(["thumb", "media", "-o", "out", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try statuses(run.stdout) == ["good.mp4": "ok", "recording": "ok"], "\(run.stdout)")
        #expect(run.stderr.contains("2 files without video ignored"), "\(run.stderr)")
    }

    @Test func brokenMediaInAScanIsAnError() throws {
        let dir = Fixture.scratchDirectory()
        let media = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixture.url("video/counter.mp4"), to: media.appendingPathComponent("good.mp4"))
        try Data(repeating: 0x41, count: 5000).write(to: media.appendingPathComponent("upload.mp4"))
        try Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0, 0, 0, 0]).write(to: media.appendingPathComponent("zero.gif"))
        try Data("GIF00a not a gif".utf8).write(to: media.appendingPathComponent("magic.gif"))
        try Data("notes\n".utf8).write(to: media.appendingPathComponent("README.txt"))
        try Data(repeating: 7, count: 100).write(to: media.appendingPathComponent("data.bin"))
        for command in [["thumb"], ["gif", "--fps", "2", "--width", "32"], ["explode", "--fps", "1"]] {
            let run = try CLI.run(command + ["media", "-o", "out-\(command[0])", "--json"], in: dir)
            #expect(run.status == 1, "\(command): \(run.stderr)")
            #expect(try statuses(run.stdout) == ["good.mp4": "ok", "magic.gif": "error", "upload.mp4": "error", "zero.gif": "error"],
                    "\(command): \(run.stdout)")
            #expect(run.stderr.contains("2 files without video ignored"), "\(run.stderr)")
            #expect(run.stderrLines.filter { $0.contains("upload.mp4") }.count == 1)
        }
        let info = try CLI.run(["info", "media", "--json"], in: dir)
        #expect(info.status == 1)
        let rows = try objects(info.stdout)
        #expect(rows.count == 4, "\(info.stdout)")
        for row in rows where (row["input"] as! String).hasSuffix("upload.mp4") {
            #expect(row["status"] as? String == "error" && (row["error"] as? String)?.isEmpty == false && row["schema"] as? Int == 1)
        }
        #expect(rows.filter { $0["status"] as? String == "ok" }.count == 1)
    }

    @Test func outputNamesADirectoryForSeveralInputs() throws {
        let dir = Fixture.scratchDirectory()
        let a = Fixture.url("video/counter.mp4").path, b = Fixture.url("video/vp9.webm").path
        #expect(try CLI.run(["thumb", a, b, "-o", "previews"], in: dir).status == 0)
        #expect(CLI.files(in: dir.appendingPathComponent("previews")) == ["counter.png", "vp9.png"])
        // A directory input with a single clip: still a directory.
        let src = try makeClips(in: dir, count: 1)
        #expect(try CLI.run(["gif", src.path, "-o", "gifs", "--fps", "2", "--width", "32"], in: dir).status == 0)
        #expect(CLI.files(in: dir.appendingPathComponent("gifs")) == ["clip0.gif"])
        // One input: -o is the file, or inside an existing directory.
        #expect(try CLI.run(["thumb", a, "-o", "one.png"], in: dir).status == 0)
        #expect(try CLI.run(["thumb", a, "-o", "previews"], in: dir).status == 0)
        #expect(CLI.files(in: dir.appendingPathComponent("previews")) == ["counter.png", "vp9.png"])
        // Several outputs cannot go to a name that looks like one file.
        let clash = try CLI.run(["thumb", a, b, "-o", "two.png"], in: dir)
        #expect(clash.status == 2 && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("two.png").path))
    }
}
