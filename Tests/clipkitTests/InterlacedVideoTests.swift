// Interlaced video comes out as its first field: no combs, the picture at the frame's time.
import Foundation
import Testing
import TestSupport
import ClipKit

@Suite struct InterlacedVideoTests {
    /// The centre of the white bar on each row of `image` (brightness-weighted column).
    static func barCentres(_ image: RGBAImage) -> [Double] {
        (0..<image.height).map { y in
            var sum = 0.0, weighted = 0.0
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                let v = Double(p.r) + Double(p.g) + Double(p.b)
                sum += v
                weighted += v * Double(x)
            }
            return sum > 0 ? weighted / sum : -1
        }
    }

    /// Interlaced frame 3 of each fixture weaves a bar at x = 36-41 (its first field, at the
    /// frame's time) with one at 42-47 (the second, 1/50 s later): top field first in H.264
    /// (MBAFF), bottom field first in MPEG-2. Every row of the thumbnail shows the first field's
    /// bar. Before, the rows alternated between the two bars: a comb 6 pixels deep.
    @Test func aThumbnailShowsTheFirstFieldOnEveryRow() throws {
        let dir = Fixture.scratchDirectory()
        for name in ["interlaced_tff.mkv", "interlaced_bff.mpg"] {
            let run = try CLI.run(["thumb", Fixture.url("video/\(name)").path, "--at", "0.12", "--size", "0", "-o", "\(name).png"], in: dir)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(name): \(run.stderr)")
            let image = try PNGReader.read(dir.appendingPathComponent("\(name).png"))
            #expect(image.width == 64 && image.height == 48, "\(name)")
            let centres = Self.barCentres(image)
            #expect(centres.allSatisfy { abs($0 - 38.5) < 1 }, "\(name): \(centres.map { Int($0.rounded()) })")
        }
    }

    /// A GIF of the whole clip: every frame is one field's picture (the rows agree), and the bar
    /// moves 12 pixels a frame, as the first fields do (6 a field).
    @Test func gifFramesHaveNoCombs() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["gif", Fixture.url("video/interlaced_tff.mkv").path, "-o", "i.gif", "--fps", "25"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let gif = try Decoded.gif(dir.appendingPathComponent("i.gif"), keep: 4)
        #expect(gif.delays.count == 20)
        for (k, canvas) in gif.canvases.enumerated() {
            let centres = Self.barCentres(canvas)
            let expected = Double(12 * k) * Double(canvas.width) / 64 + 2.5 * Double(canvas.width) / 64
            let spread = (centres.max() ?? 0) - (centres.min() ?? 0)
            #expect(spread < 1.5, "frame \(k): \(centres.map { Int($0.rounded()) })")
            #expect(abs(centres[0] - expected) < 2, "frame \(k): bar at \(centres[0]), expected \(expected)")
        }
    }
}
