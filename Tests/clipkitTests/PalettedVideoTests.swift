// Paletted (PAL8) video: opaque, and with its header palette after a seek, as a decode from the start shows it.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct PalettedVideoTests {
    /// `--at` past the first packet (which alone carries the header palette) wrote a fully
    /// transparent black PNG; now every position is the opaque frame ffmpeg's decode from the
    /// beginning shows, and the PNG is RGB.
    @Test func seekKeepsTheHeaderPaletteAndIsOpaque() throws {
        let url = Fixture.url("video/palette_raw.avi")
        let reference = try ReferenceDecode(url, width: 48, height: 32)
        #expect(reference.frames.count == 12)
        let scratch = Fixture.scratchDirectory()
        for target in [0, 1.0, 2.3] {
            let result = try CLI.run(["thumb", url.path, "--at", "\(target)", "--size", "0", "-o", "t\(target).png"], in: scratch)
            #expect(result.status == 0, "\(result.stderr)")
            let png = scratch.appendingPathComponent("t\(target).png")
            let bytes = [UInt8](try Data(contentsOf: png))
            #expect(bytes[25] == 2, "colour type \(bytes[25]) at \(target): RGB, no alpha channel")
            let image = try PNGReader.read(png)
            #expect(image.isOpaque)
            let difference = reference.difference(image, reference.shown(at: target))
            #expect(difference < 1, "at \(target): \(difference) levels from the frame decoded from the start")
        }
    }
}
