// FrameDiff: the first frame is whole, then only the pixels that visibly changed, in their bounding rectangle.
import Testing
@testable import ClipKit

@Suite struct FrameDiffTests {
    let width = 12, height = 9

    /// A busy but deterministic opaque frame.
    func frame() -> RGBAImage {
        var pixels: [UInt8] = []
        for i in 0..<(width * height) {
            pixels += [UInt8((i * 7) % 256), UInt8((i * 13) % 256), UInt8((i * 29) % 256), 255]
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// `image` with the pixel at (x, y) changed by `delta` on every colour channel (and alpha set to `alpha`).
    func changing(_ image: RGBAImage, x: Int, y: Int, by delta: Int = 40, alpha: UInt8 = 255) -> RGBAImage {
        var out = image
        let o = (y * width + x) * 4
        for k in 0..<3 { out.pixels[o + k] = UInt8((Int(out.pixels[o + k]) + delta + 256) % 256) }
        out.pixels[o + 3] = alpha
        return out
    }

    func changedPoints(_ change: FrameDiff.Change) -> [[Int]] {
        change.mask.indices.filter { change.mask[$0] }.map { [$0 % width, $0 / width] }
    }

    @Test func firstFrameIsWhole() {
        var diff = FrameDiff(threshold: 250)
        let change = diff.change(to: frame())
        #expect(change.isFirst)
        #expect(change.rect == PixelRect(x: 0, y: 0, width: width, height: height))
        #expect(change.mask.count == width * height && change.mask.allSatisfy { $0 })
        // A frame of another size starts over: it is whole again.
        let bigger = RGBAImage(width: width + 1, height: height, pixels: [UInt8](repeating: 9, count: (width + 1) * height * 4))
        let resized = diff.change(to: bigger)
        #expect(resized.isFirst && resized.rect == PixelRect(x: 0, y: 0, width: width + 1, height: height))
    }

    @Test func identicalFrameIsEmpty() {
        var diff = FrameDiff(threshold: 0)
        _ = diff.change(to: frame())
        let change = diff.change(to: frame())
        #expect(!change.isFirst)
        #expect(change.rect.isEmpty)
        #expect(change.mask.allSatisfy { !$0 })
    }

    @Test(arguments: [(0, 0), (11, 8), (5, 3), (0, 8), (11, 0)])
    func oneChangedPixelIsAOneByOneRect(x: Int, y: Int) {
        var diff = FrameDiff(threshold: 250)
        _ = diff.change(to: frame())
        let change = diff.change(to: changing(frame(), x: x, y: y))
        #expect(change.rect == PixelRect(x: x, y: y, width: 1, height: 1))
        #expect(changedPoints(change) == [[x, y]])
    }

    @Test func thresholdDecidesWhatIsAChange() {
        // +2 on each channel is Palette.distance 3*4 + 4*4 + 2*4 = 36.
        let nudged = changing(frame(), x: 4, y: 4, by: 2)
        for (threshold, changed) in [(0, true), (35, true), (36, false), (250, false)] {
            var diff = FrameDiff(threshold: threshold)
            _ = diff.change(to: frame())
            let change = diff.change(to: nudged)
            #expect(change.rect.isEmpty != changed, "threshold \(threshold): \(change.rect)")
        }
        // Alpha is compared exactly, whatever the threshold.
        var diff = FrameDiff(threshold: 100_000)
        _ = diff.change(to: frame())
        #expect(diff.change(to: changing(frame(), x: 2, y: 6, by: 0, alpha: 254)).rect == PixelRect(x: 2, y: 6, width: 1, height: 1))
    }

    @Test func maskMarksExactlyTheChangedPixels() {
        var diff = FrameDiff(threshold: 250)
        _ = diff.change(to: frame())
        var next = frame()
        let points = [[2, 1], [9, 3], [4, 5], [7, 5], [3, 7]]
        for p in points { next = changing(next, x: p[0], y: p[1]) }
        // Below the threshold (distance 36): not a change, though it is inside the rect.
        next = changing(next, x: 5, y: 4, by: 2)
        let change = diff.change(to: next)
        #expect(change.rect == PixelRect(x: 2, y: 1, width: 8, height: 7))
        #expect(changedPoints(change) == points.sorted { ($0[1], $0[0]) < ($1[1], $1[0]) })
    }

    @Test func slowDriftIsRedrawnOnceItAddsUp() {
        // The reference only moves when a pixel is drawn, so +2 a frame (distance 36, under the
        // threshold of 100) is drawn on the second step (+4: distance 144), then rests again.
        var diff = FrameDiff(threshold: 100)
        var image = frame()
        _ = diff.change(to: image)
        var drawn: [Bool] = []
        for _ in 0..<4 {
            image = changing(image, x: 6, y: 2, by: 2)
            drawn.append(!diff.change(to: image).rect.isEmpty)
        }
        #expect(drawn == [false, true, false, true])
    }
}
