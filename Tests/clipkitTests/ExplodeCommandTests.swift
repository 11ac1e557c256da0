// Runs the built clipkit binary: explode's exit codes and stderr lines.
import Foundation
import Testing
import TestSupport
import ClipKit

@Suite struct ExplodeCommandTests {
    func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, stderr: String) {
        let result = try CLI.run(arguments, in: directory)
        return (result.status, result.stderr)
    }

    @Test func exitCodesAndWarnings() throws {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary.path), "no clipkit at \(CLI.binary.path)")
        let scratch = Fixture.scratchDirectory()
        let truncated = Fixture.url("gif/truncated.gif").path

        // Damage decoded around: a warning line, exit 0, ./NAME.frames written.
        let damaged = try run(["explode", truncated], in: scratch)
        #expect(damaged.status == 0)
        #expect(damaged.stderr.hasPrefix("clipkit: warning: \(truncated): "))
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("truncated.frames/frames.json").path))

        // One bad input among good ones: exit 1, the good one still written.
        let mixed = try run(["explode", Fixture.url("gif/not_a_gif.gif").path, Fixture.url("gif/loop_zero.gif").path, "-o", "many"], in: scratch)
        #expect(mixed.status == 1)
        #expect(mixed.stderr.contains("not_a_gif.gif"))
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("many/loop_zero.frames/frame_0002.png").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("many/not_a_gif.frames").path))

        // Usage errors: exit 2, nothing written.
        let usage = try run(["explode", truncated, "--frames", "3-1", "-o", "nothing"], in: scratch)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--frames"))
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("nothing").path))
    }

    /// A Matroska cut whose first 33 frames have no timestamp (`cut_negts.mkv`): explode wrote
    /// 96 frames, one of them -1240 ms, and gif refused that frames.json. Now explode, gif and
    /// thumb --at agree: 64 frames of 40 ms from counter 36 (the frame at 0 s), 26 GIF frames of
    /// 100 ms, counter 61 at 1 s; and the frames.json rebuilds a GIF.
    @Test func untimedLeadAgreesAcrossCommands() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/cut_negts.mkv").path
        // The counter fixture's frame number (R = 8 + 16*(n%16), G = 8 + 16*(n/16)).
        func counter(_ image: RGBAImage) -> Int {
            let p = image.pixel(x: 32, y: 24)
            return Int(p.g) / 16 * 16 + Int(p.r) / 16
        }
        let exploded = try run(["explode", clip, "-o", "frames"], in: dir)
        #expect(exploded.status == 0, "\(exploded.stderr)")
        let frames = dir.appendingPathComponent("frames")
        let (delays, files) = try Decoded.explode(frames)
        #expect(delays == Array(repeating: 4, count: 64))
        #expect(try counter(PNGReader.read(frames.appendingPathComponent(files[0]))) == 36)
        #expect(try counter(PNGReader.read(frames.appendingPathComponent(files[25]))) == 61)

        let rebuilt = try run(["gif", frames.appendingPathComponent("frames.json").path, "-o", "rebuilt.gif"], in: dir)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(try Decoded.gif(dir.appendingPathComponent("rebuilt.gif")).delays == Array(repeating: 4, count: 64))

        let gif = try run(["gif", clip, "-o", "clip.gif"], in: dir)
        #expect(gif.status == 0, "\(gif.stderr)")
        let decoded = try Decoded.gif(dir.appendingPathComponent("clip.gif"))
        #expect(decoded.delays.count == 26 && decoded.delays.reduce(0, +) == 256, "\(decoded.delays)")
        #expect(decoded.canvases.map(counter) == [36, 38])

        let thumb = try run(["thumb", clip, "--at", "1", "-o", "at1.png"], in: dir)
        #expect(thumb.status == 0 && thumb.stderr.isEmpty, "\(thumb.stderr)")
        #expect(try counter(PNGReader.read(dir.appendingPathComponent("at1.png"))) == 61)
    }
}
