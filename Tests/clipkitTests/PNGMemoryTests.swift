// `--max-memory` on PNG frames given to `clipkit gif`: refused from the header when the pass cannot fit, within the limit when it can.
import Foundation
import Testing
import TestSupport
import ClipKit

/// A PNG's conversion is checked from its header as a video's is (`GIFPassMemory`): one frame is
/// one picture from decoder to writer, plus the stages' bytes per pixel (9 a pixel exact, 22
/// lossy and measured, and the meter's planes). The pictures here are 1600x1600 (2.56 Mpx):
/// exact 22 MiB, `--quality 50` or `--max-bytes` 109 MiB, three frames 61 MiB, a frame scaled to
/// 400 px wide 11 MiB (the PNG is decoded whole before it is scaled).
@Suite struct PNGMemoryTests {
    static let side = 1600

    /// `count` different gradients, `side` x `side`, named big0.png, big1.png, ... in a
    /// directory of their own (the outputs' stays empty when a run is refused); their paths.
    static func pictures(_ count: Int = 1, _ name: String = #function) throws -> [String] {
        let inputs = Fixture.scratchDirectory("\(name)-inputs")
        return try PNGFrames.write(count, width: side, height: side, in: inputs, prefix: "big") { i, x, y in
            (x * 255 / side, y * 255 / side, (x / 64 + y / 64 + i) % 2 * 200)
        }.map { inputs.appendingPathComponent($0).path }
    }

    static func mebibytes(_ value: Int) -> String { "\(value << 20)" }

    /// A run that fits stays within the limit, the binary and its libraries aside.
    static func expectWithin(_ run: ChildRun, limit: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.exitStatus == 0, "\(what): \(run)", sourceLocation: sourceLocation)
        let bound = (limit + 64) << 20 * Hostile.Inputs.sanitizerScale.memory
        #expect(run.maxRSS < bound, "\(what): peak RSS \(run.megabytes) MiB under --max-memory \(limit) MiB", sourceLocation: sourceLocation)
    }

    @Test func aPictureThatCannotFitIsRefusedBeforeItIsDecoded() throws {
        let dir = Fixture.scratchDirectory()
        let name = try Self.pictures()[0]
        let refused = try Spawn.clipkit(["gif", name, "-o", "small.gif", "--max-memory", Self.mebibytes(16)], in: dir)
        Hostile.Inputs.expectRefused(refused, input: name, option: "--max-memory", in: dir)
        #expect(refused.stderr.contains("1 frame of 1600x1600"), "\(refused.stderr)")
        // Its data cut short: still the memory limit (a decode would have found it corrupt).
        let whole = try Data(contentsOf: URL(fileURLWithPath: name))
        try whole.prefix(whole.count / 2).write(to: dir.appendingPathComponent("cut.png"))
        let cut = try Spawn.clipkit(["gif", "cut.png", "-o", "cut.gif", "--max-memory", Self.mebibytes(16)], in: dir)
        #expect(cut.exitStatus == 1 && cut.stderr.contains("--max-memory"), "\(cut)")
        let corrupt = try Spawn.clipkit(["gif", "cut.png", "-o", "cut.gif", "--max-memory", Self.mebibytes(48)], in: dir)
        #expect(corrupt.exitStatus == 1 && !corrupt.stderr.contains("--max-memory"), "\(corrupt)")

        let fits = try Spawn.clipkit(["gif", name, "-o", "fits.gif", "--max-memory", Self.mebibytes(48)], in: dir)
        Self.expectWithin(fits, limit: 48, "exact")
        let gif = try GIFDecoder(url: dir.appendingPathComponent("fits.gif"))
        #expect(gif.canvasWidth == Self.side && gif.canvasHeight == Self.side)
    }

    /// Lossy LZW and the measure take more than exact writing: where the exact GIF fits, a
    /// `--quality` or `--max-bytes` GIF (lossy from level 80, always measured) may not.
    @Test(arguments: [["--quality", "50"], ["--max-bytes", "20KB"], ["--lossy", "80", "--measure"]])
    func lossyAndMeasuredPassesCountTheirBuffers(_ settings: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let name = try Self.pictures()[0]
        let refused = try Spawn.clipkit(["gif", name, "-o", "out.gif", "--max-memory", Self.mebibytes(96)] + settings, in: dir)
        Hostile.Inputs.expectRefused(refused, input: name, option: "--max-memory", in: dir)
        #expect(refused.stderr.contains("quality meter"), "\(refused.stderr)")
        let exact = try Spawn.clipkit(["gif", name, "-o", "exact.gif", "--max-memory", Self.mebibytes(96)], in: dir)
        #expect(exact.exitStatus == 0, "\(exact)")
    }

    /// Several frames are several pictures in flight; a picture scaled down is decoded whole first.
    @Test func framesInFlightAndTheDecodedSourceCount() throws {
        let dir = Fixture.scratchDirectory()
        let names = try Self.pictures(3)
        let three = try Spawn.clipkit(["gif"] + names + ["-o", "three.gif", "--max-memory", Self.mebibytes(48)], in: dir)
        Hostile.Inputs.expectRefused(three, input: names[0], option: "--max-memory", in: dir)
        #expect(three.stderr.contains("frames of 1600x1600 in flight"), "\(three.stderr)")
        let one = try Spawn.clipkit(["gif", names[0], "-o", "one.gif", "--max-memory", Self.mebibytes(48)], in: dir)
        #expect(one.exitStatus == 0, "\(one)")
        let roomy = try Spawn.clipkit(["gif"] + names + ["-o", "roomy.gif", "--max-memory", Self.mebibytes(96)], in: dir)
        Self.expectWithin(roomy, limit: 96, "three frames")
        #expect(try GIFDecoder(url: dir.appendingPathComponent("roomy.gif")).remainingDelays().count == 3)

        let scaled = try Spawn.clipkit(["gif", names[0], "--width", "400", "-o", "scaled.gif", "--max-memory", Self.mebibytes(16)], in: dir)
        Self.expectWithin(scaled, limit: 16, "scaled to 400 px")
        let tiny = try Spawn.clipkit(["gif", names[0], "--width", "400", "-o", "tiny.gif", "--max-memory", Self.mebibytes(8)], in: dir)
        #expect(tiny.exitStatus == 1 && tiny.stderr.contains("the source's pictures"), "\(tiny)")
    }

    /// `thumb`, `storyboard`, `explode` and `info` open a PNG through FFmpeg, whose probe decodes
    /// it whole (RGBA: counted as 10 bytes a pixel, 24 MiB here): refused from the header when
    /// that cannot fit.
    @Test(arguments: [["thumb", "-o", "t.png"], ["storyboard", "-o", "board"], ["explode", "-o", "frames"], ["info"]])
    func probingABigPNGIsRefusedFromItsHeader(_ command: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let name = try Self.pictures()[0]
        let refused = try Spawn.clipkit([command[0], name] + command.dropFirst() + ["--max-memory", Self.mebibytes(16)], in: dir)
        Hostile.Inputs.expectRefused(refused, input: name, option: "--max-memory", in: dir)
        #expect(refused.stderr.contains("decoding a 1600x1600 PNG"), "\(refused.stderr)")
        if command[0] == "thumb" {
            let fits = try Spawn.clipkit([command[0], name] + command.dropFirst() + ["--max-memory", Self.mebibytes(48)], in: dir)
            Self.expectWithin(fits, limit: 48, "thumb")
        }
    }

    /// A GIF source's displayed frames are counted from its scan: a one-image GIF is one picture
    /// in flight (and its canvas and the shown frame's copy), not the queues' nine.
    @Test func aOneImageGIFIsOnePictureInFlight() throws {
        let dir = Fixture.scratchDirectory()
        let names = try Self.pictures(3)
        let size = ["--width", "\(Self.side)"]
        #expect(try Spawn.clipkit(["gif", names[0], "-o", "one.gif"] + size, in: dir).exitStatus == 0)
        #expect(try Spawn.clipkit(["gif"] + names + ["-o", "three.gif"] + size, in: dir).exitStatus == 0)
        let one = try Spawn.clipkit(["gif", "one.gif", "-o", "again.gif", "--max-memory", Self.mebibytes(48)] + size, in: dir)
        Self.expectWithin(one, limit: 48, "one image")
        let again = try GIFDecoder(url: dir.appendingPathComponent("again.gif"))
        #expect(again.canvasWidth == Self.side)
        // Three frames are five pictures (each its own, and the reference's copy): refused there.
        let three = try Spawn.clipkit(["gif", "three.gif", "-o", "three-again.gif", "--max-memory", Self.mebibytes(48)] + size, in: dir)
        #expect(three.exitStatus == 1 && three.stderr.contains("5 frames of 1600x1600 in flight"), "\(three)")
    }
}
