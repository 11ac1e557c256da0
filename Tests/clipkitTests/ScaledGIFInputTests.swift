// A GIF input scaled down: the same bytes on every run (swscale reads past a row's end).
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ScaledGIFInputTests {
    @Test func aGIFScaledDownIsTheSameEveryRun() throws {
        // A 309x174 GIF of busy colour (the width of a hostile file that showed it): scaled to 85
        // px, its right edge took heap garbage from past the source's last row, a different GIF
        // on most runs.
        let dir = Fixture.scratchDirectory()
        let names = try PNGFrames.write(3, width: 309, height: 174, in: dir) { i, x, y in
            ((x * 3 + i * 40) & 255, (y * 5) & 255, (x * y + i) * 7 & 255)
        }
        #expect(try CLI.run(["gif"] + names + ["-o", "source.gif", "-q"], in: dir).status == 0)
        for width in [85, 61, 37] {
            var outputs: [Data] = []
            for run in 0..<4 {
                let name = "w\(width)-\(run).gif"
                let result = try CLI.run(["gif", "source.gif", "--width", "\(width)", "-o", name, "-q"], in: dir)
                #expect(result.status == 0, "\(result.stderr)")
                outputs.append(try Data(contentsOf: dir.appendingPathComponent(name)))
            }
            #expect(Set(outputs).count == 1, "width \(width): \(Set(outputs).count) different GIFs in 4 runs")
            // The right edge is the picture's, not noise: its last column follows the column before.
            let canvas = try #require(try Decoded.gif(dir.appendingPathComponent("w\(width)-0.gif"), keep: 1).canvases.first)
            var jump = 0
            for y in 0..<canvas.height {
                let a = canvas.pixel(x: canvas.width - 1, y: y), b = canvas.pixel(x: canvas.width - 2, y: y)
                jump += abs(Int(a.g) - Int(b.g))
            }
            #expect(Double(jump) / Double(canvas.height) < 40, "width \(width): mean green step at the right edge \(jump / canvas.height)")
        }
    }
}
