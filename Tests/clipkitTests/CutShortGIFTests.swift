// GIF to GIF: pixels a damaged GIF's first image never decoded stay transparent, as explode and browsers show them.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct CutShortGIFTests {
    /// An opaque GIF whose first image's data stops after 136 of its 1200 pixels (the file cut
    /// there, or the data closed early): the block scan sees no transparency, but the decoder
    /// leaves 1064 pixels undrawn. `gif` made them opaque black; now its output has the same
    /// transparent pixels as `explode`'s PNG.
    @Test(arguments: ["cut_first_image.gif", "short_first_image.gif"])
    func undecodedPixelsStayTransparent(_ name: String) throws {
        let input = Fixture.url("gif/\(name)")
        let scratch = Fixture.scratchDirectory()
        #expect(try CLI.run(["explode", input.path, "-o", "frames/"], in: scratch).status == 0)
        #expect(try CLI.run(["gif", input.path, "-o", "out.gif"], in: scratch).status == 0)
        let exploded = try PNGReader.read(scratch.appendingPathComponent("frames/frame_0000.png"))
        let written = try #require(try GIFAnimation(url: scratch.appendingPathComponent("out.gif")).next()).canvas
        #expect((written.width, written.height) == (exploded.width, exploded.height))
        var transparent = 0, mismatched = 0
        for i in stride(from: 3, to: exploded.pixels.count, by: 4) {
            if exploded.pixels[i] == 0 { transparent += 1 }
            if (exploded.pixels[i] == 0) != (written.pixels[i] == 0) { mismatched += 1 }
        }
        #expect(transparent == 1064)
        #expect(mismatched == 0, "\(mismatched) pixels differ in transparency")
        #expect(try GIFAnimation(url: input).scan.mayBeTransparent)
    }
}
