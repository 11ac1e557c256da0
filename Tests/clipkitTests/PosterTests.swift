// `clipkit gif --poster`: one decode feeds the GIF and a PNG poster of its first frame.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct PosterTests {
    @Test func posterIsTheGIFsFirstFrame() throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run(["gif", Fixture.url("video/rotated90.mov").path, "-o", "a.gif", "--poster", "a.png", "--json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("a.png"), "the report lists the poster: \(result.stdout)")
        let poster = try PNGReader.read(dir.appendingPathComponent("a.png"))
        let animation = try GIFAnimation(url: dir.appendingPathComponent("a.gif"))
        let first = try #require(try animation.next())
        #expect((poster.width, poster.height) == (first.canvas.width, first.canvas.height))
        #expect((poster.width, poster.height) == (240, 320), "upright, as the GIF")
        // The GIF's frame is quantised; the poster is the source frame it came from.
        var error = 0
        for i in stride(from: 0, to: poster.pixels.count, by: 4) {
            for c in 0..<3 { error = max(error, abs(Int(poster.pixels[i + c]) - Int(first.canvas.pixels[i + c]))) }
        }
        #expect(error < 40, "largest channel difference \(error)")
        #expect(CLI.files(in: dir) == ["a.gif", "a.png"])
    }

    @Test func posterNeedsOneVideoAndAPNGName() throws {
        let dir = Fixture.scratchDirectory()
        let clip = Fixture.url("video/counter.mp4").path
        let two = try CLI.run(["gif", clip, clip, "-o", "out/", "--poster", "p.png"], in: dir)
        #expect(two.status == 2 && two.stderr.contains("--poster"))
        let name = try CLI.run(["gif", clip, "--poster", "p.jpg"], in: dir)
        #expect(name.status == 2 && name.stderr.contains("PNG"))
        #expect(CLI.files(in: dir).isEmpty)
    }

    @Test func failedGIFLeavesNoPoster() throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run(["gif", Fixture.url("video/counter.mp4").path, "-o", "a.gif", "--poster", "a.png", "--max-frames", "3"], in: dir)
        #expect(result.status == 1)
        #expect(CLI.files(in: dir).isEmpty, "left: \(CLI.files(in: dir))")
    }

    /// A damaged GIF gives its thumbnail and GIF with a warning on stderr, which --quiet keeps.
    @Test(arguments: ["thumb", "gif", "explode"])
    func damageWarningsSurviveQuiet(_ command: String) throws {
        let dir = Fixture.scratchDirectory()
        let result = try CLI.run([command, Fixture.url("gif/truncated.gif").path, "-o", "out", "-q"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.count >= 1 && result.stderrLines.allSatisfy { $0.hasPrefix("clipkit: warning: ") && $0.contains("truncated.gif") },
                "\(result.stderr)")
    }
}
