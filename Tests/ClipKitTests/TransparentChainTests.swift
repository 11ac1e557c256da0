// GIFs with transparency re-encoded as changes (`TransparentChain`): random animations of
// rectangles drawn and cut out, converted and decoded again by giflib, frame for frame.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct TransparentChainTests {
    /// A small deterministic generator (the animations must be the same on every run).
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// 40 animations of 1-40 x 1-30 pixels and 1-10 frames, each frame the last with rectangles
    /// of one of 8 colours drawn and others cut out (sometimes all cleared first), written whole
    /// with disposal background: converted, every canvas (transparency included) is the
    /// source's at every image, and the delays are the source's. The sizes and the rectangles
    /// cover the chain's corners: clears at the edges, frames that draw nothing, one-pixel canvases.
    @Test func randomAnimationsComeOutAsTheSourceShowsThem() throws {
        let dir = Fixture.scratchDirectory()
        var rgb: [UInt8] = []
        for k in 0..<8 { rgb += [UInt8(k * 32), UInt8(255 - k * 30), UInt8((k * 97) % 256)] }
        rgb += [0, 0, 0]  // index 8: transparent
        let palette = Palette(rgb: rgb)
        var random = Generator(state: 42)
        var redrawn = 0, images = 0
        for index in 0..<40 {
            let (w, h) = (1 + random.next(40), 1 + random.next(30))
            var canvas = [UInt8](repeating: 8, count: w * h)
            let url = dir.appendingPathComponent("random\(index).gif")
            let encoder = try GIFEncoder(url: url, width: w, height: h, globalPalette: palette, loopCount: 0)
            for _ in 0..<(1 + random.next(10)) {
                if random.next(4) == 0 { canvas = [UInt8](repeating: 8, count: w * h) }
                for _ in 0..<random.next(4) {
                    let (x0, y0) = (random.next(w), random.next(h))
                    let (x1, y1) = (x0 + random.next(w - x0), y0 + random.next(h - y0))
                    let colour = random.next(3) == 0 ? 8 : random.next(8)
                    for y in y0...y1 { for x in x0...x1 { canvas[y * w + x] = UInt8(colour) } }
                }
                try encoder.add(GIFFrame(width: w, height: h, delay: 5 + random.next(3) * 5, disposal: .background, transparentIndex: 8,
                                         indices: canvas))
            }
            try encoder.finish()
            let out = dir.appendingPathComponent("out\(index).gif")
            _ = try GIFConverter().convert(video: url, to: out)
            let (source, written) = (try GiflibReference(url: url), try GiflibReference(url: out))
            // Identical source frames are merged: compare what shows at each moment.
            func timeline(_ gif: GiflibReference) -> [(end: Int, canvas: RGBAImage)] {
                var t = 0
                return zip(gif.delays, gif.canvases).map { delay, canvas in t += delay; return (t, canvas) }
            }
            let (shown, made) = (timeline(source), timeline(written))
            #expect(shown.last?.end == made.last?.end, "random\(index): same length")
            var start = 0
            for moment in shown {
                let output = made.first { $0.end > start }
                #expect(output?.canvas == moment.canvas, "random\(index) (\(w)x\(h)) at \(start) cs")
                start = moment.end
            }
            images += written.images.count
            redrawn += written.images.filter { $0.width * $0.height < w * h }.count
        }
        // More than a third of the images draw less than the whole canvas (98 of 172; before,
        // every image was written whole).
        #expect(redrawn * 3 > images, "\(redrawn) of \(images) images smaller than their canvas")
    }
}
