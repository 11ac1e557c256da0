// Finds what visibly changed since the last frame: the bounding rectangle and the pixels to redraw.

/// Compares each new frame with what the viewer already sees and keeps only visible changes.
///
/// The reference holds, for every pixel, the source colour it had when it was last drawn. A pixel
/// whose new colour is within `threshold` of that is left alone (written as transparent), so
/// codec noise and dither do not crawl over a still background; a slow drift still gets redrawn
/// once it adds up past the threshold, because the reference only moves when a pixel is drawn.
struct FrameDiff: Sendable {
    /// Largest perceptual distance (`Palette.distance` units) that is not a change; 0 = exact.
    let threshold: Int
    /// What the viewer sees (alpha exact, colours as last drawn); nil before the first frame.
    private(set) var reference: RGBAImage?

    init(threshold: Int) {
        self.threshold = threshold
    }

    struct Change: Sendable {
        /// The bounding rectangle of changed pixels; empty when nothing changed.
        var rect: PixelRect
        /// For every canvas pixel, whether it is drawn (only meaningful inside `rect`).
        var mask: [Bool]
        var isFirst: Bool
    }

    /// The viewer's canvas was cleared over `rect` (disposal background): nothing shows there.
    mutating func clear(_ rect: PixelRect) {
        guard var image = reference else { return }
        let (x0, y0) = (max(rect.x, 0), max(rect.y, 0))
        let (x1, y1) = (min(rect.x + rect.width, image.width), min(rect.y + rect.height, image.height))
        guard x0 < x1, y0 < y1 else { return }
        reference = nil
        image.pixels.withUnsafeMutableBufferPointer { p in
            for y in y0..<y1 {
                for i in (y * image.width + x0) * 4..<(y * image.width + x1) * 4 { p[i] = 0 }
            }
        }
        reference = image
    }

    /// The change from the current reference to `image`, and the reference updated to it.
    mutating func change(to image: RGBAImage) -> Change {
        let count = image.width * image.height
        guard let previous = reference, previous.width == image.width, previous.height == image.height else {
            reference = image
            return Change(rect: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
                          mask: [Bool](repeating: true, count: count), isFirst: true)
        }
        var mask = [Bool](repeating: false, count: count)
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        var updated = previous.pixels
        let w = image.width, threshold = self.threshold
        image.pixels.withUnsafeBufferPointer { new in
            previous.pixels.withUnsafeBufferPointer { old in
                updated.withUnsafeMutableBufferPointer { ref in
                    mask.withUnsafeMutableBufferPointer { mask in
                        for y in 0..<image.height {
                            var rowChanged = false
                            for x in 0..<w {
                                // Wrapping arithmetic in this hot loop: i < width * height by the loop bounds.
                                let i = y &* w &+ x, o = i &* 4
                                let d = Palette.distance(Int(new[o]), Int(new[o &+ 1]), Int(new[o &+ 2]),
                                                         Int(old[o]), Int(old[o &+ 1]), Int(old[o &+ 2]))
                                if d > threshold || new[o &+ 3] != old[o &+ 3] {
                                    mask[i] = true
                                    ref[o] = new[o]; ref[o &+ 1] = new[o &+ 1]; ref[o &+ 2] = new[o &+ 2]; ref[o &+ 3] = new[o &+ 3]
                                    if x < minX { minX = x }
                                    if x > maxX { maxX = x }
                                    rowChanged = true
                                }
                            }
                            if rowChanged {
                                if y < minY { minY = y }
                                maxY = y
                            }
                        }
                    }
                }
            }
        }
        reference = RGBAImage(width: image.width, height: image.height, pixels: updated)
        guard maxX >= 0 else {
            return Change(rect: PixelRect(x: 0, y: 0, width: 0, height: 0), mask: mask, isFirst: false)
        }
        return Change(rect: PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), mask: mask, isFirst: false)
    }
}
