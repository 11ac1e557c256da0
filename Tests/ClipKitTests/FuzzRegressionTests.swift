// Inputs kept from `make fuzz` (Fixtures/fuzz) and the broken GIFs of Fixtures/bad decode or fail cleanly.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct FuzzRegressionTests {
    @Test func decodersSurviveKeptInputs() throws {
        let folders = [Fixture.url("fuzz"), Fixture.url("bad")]
        var checked = 0
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".gif") {
                let url = folder.appendingPathComponent(name)
                checked += 1
                guard let decoder = try? GIFDecoder(url: url, maxPixels: 1 << 22) else { continue }
                var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
                var images = 0
                while images < 100_000, let frame = try? decoder.next() {
                    compositor.draw(frame, decodedPixels: decoder.decodedPixelCount)
                    images += 1
                }
                #expect(compositor.canvas.width == decoder.canvasWidth, "\(name)")
            }
        }
        #expect(checked > 10)
    }
}
