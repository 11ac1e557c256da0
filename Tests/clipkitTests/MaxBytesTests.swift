// `gif --max-bytes`: the least lossy GIF that fits, never a byte over; clear errors when nothing fits.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct MaxBytesTests {
    static let clip = Fixture.url("video/motion.mp4")

    func size(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? -1
    }

    @Test(arguments: [0.8, 0.6, 0.35])
    func fitsJustUnderTheLimit(_ fraction: Double) throws {
        let dir = Fixture.scratchDirectory()
        #expect(try CLI.run(["gif", Self.clip.path, "-o", "default.gif"], in: dir).status == 0)
        let full = try size(dir.appendingPathComponent("default.gif"))
        let limit = Int(Double(full) * fraction)
        let run = try CLI.run(["gif", Self.clip.path, "-o", "fit.gif", "--max-bytes", "\(limit)", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = try size(dir.appendingPathComponent("fit.gif"))
        #expect(bytes <= limit, "\(bytes) bytes for a limit of \(limit)")
        #expect(Double(bytes) >= 0.85 * Double(limit), "\(bytes) bytes: far under the limit of \(limit)")
        #expect(run.stdout.contains("\"bytes\":\(bytes)"))
        // Still the same clip: same delays (giflib decodes it; the frames may merge differently when lossy).
        let fitted = try Decoded.gif(dir.appendingPathComponent("fit.gif"), keep: 0)
        let reference = try Decoded.gif(dir.appendingPathComponent("default.gif"), keep: 0)
        #expect(fitted.delays.reduce(0, +) == reference.delays.reduce(0, +))
        // Only the chosen GIF is left: the other levels' temp files are gone.
        #expect(CLI.files(in: dir) == ["default.gif", "fit.gif"])
        // The same choice every time, whatever the writers' timing.
        let again = try CLI.run(["gif", Self.clip.path, "-o", "again.gif", "--max-bytes", "\(limit)"], in: dir)
        #expect(again.status == 0)
        #expect(try Data(contentsOf: dir.appendingPathComponent("again.gif")) == Data(contentsOf: dir.appendingPathComponent("fit.gif")))
    }

    @Test func aLimitTooSmallIsAnErrorAndWritesNothing() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Self.clip.path, "-o", "tiny.gif", "--max-bytes", "3KB"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderrLines.count == 1 && run.stderr.contains("no GIF fits in 3000 bytes") && run.stderr.contains("the smallest"), "\(run.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }

    @Test func badSizesAreUsageErrors() throws {
        let dir = Fixture.scratchDirectory()
        for bad in ["0", "-5", "abc", "5XB", "1e3", "0.4"] {
            let run = try CLI.run(["gif", Self.clip.path, "-o", "x.gif", "--max-bytes=\(bad)"], in: dir)
            #expect(run.status == 2, "\(bad): \(run.stderr)")
        }
        #expect(CLI.files(in: dir).isEmpty)
        // Units: decimal and binary, any case.
        let run = try CLI.run(["gif", Self.clip.path, "-o", "big.gif", "--max-bytes", "2mib"], in: dir)
        #expect(run.status == 0)
    }

    @Test func theFittedGIFIsUpToDateOnARerun() throws {
        let dir = Fixture.scratchDirectory()
        let arguments = ["gif", Self.clip.path, "-o", "fit.gif", "--max-bytes", "150KB", "--json"]
        #expect(try CLI.run(arguments, in: dir).status == 0)
        let again = try CLI.run(arguments, in: dir)
        #expect(again.stdout.contains("\"status\":\"skipped\""), "\(again.stdout)")
        let other = try CLI.run(["gif", Self.clip.path, "-o", "fit.gif", "--max-bytes", "140KB", "--json"], in: dir)
        #expect(other.stdout.contains("\"status\":\"ok\""), "a new limit redoes it: \(other.stdout)")
    }

    @Test func qualityIsALossyLevel() throws {
        let levels = (1...100).map(GIFOptions.lossyLevel(forQuality:))
        #expect(levels.first == 400 && levels.last == 0)
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 >= $1 }, "lower quality is never less lossy")
        let dir = Fixture.scratchDirectory()
        #expect(try CLI.run(["gif", Self.clip.path, "-o", "q.gif", "--quality", "50"], in: dir).status == 0)
        #expect(try CLI.run(["gif", Self.clip.path, "-o", "l.gif", "--lossy", "\(GIFOptions.lossyLevel(forQuality: 50))"], in: dir).status == 0)
        #expect(try Data(contentsOf: dir.appendingPathComponent("q.gif")) == Data(contentsOf: dir.appendingPathComponent("l.gif")))
        for bad in ["0", "101", "abc"] {
            #expect(try CLI.run(["gif", Self.clip.path, "-o", "x.gif", "--quality", bad], in: dir).status == 2, "\(bad)")
        }
    }
}
