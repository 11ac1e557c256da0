// Frames with transparency: each drawn over the last, which clears (disposal background) a
// rectangle taking in the pixels that turn transparent, if any.

/// The quantise stage's state for frames with transparency (`GIFQuantizeStage.transparentFrames`).
///
/// A GIF can turn a shown pixel transparent only by clearing: disposal "background" empties the
/// image's rectangle once it has been shown. So where a frame turns no visible pixel transparent
/// (it only adds or changes colours: a picture built up stroke by stroke, a sticker whose edges
/// stay put), it is drawn over the last: the rectangle of what changed, unchanged and transparent
/// pixels as the transparent index, and the last frame's disposal "none". Where pixels turn
/// transparent, the last frame's rectangle is widened to take them in (its new pixels
/// transparent, so it shows the same) with disposal "background", and the frame draws what
/// changed against the canvas so cleared (what shows in the cleared rectangle again, and its
/// changes elsewhere), as `gifsicle -O3` does. Before, every frame was written whole, each
/// clearing the last: a GIF drawn one pixel per frame (4,001 images of 1x1, 92 KB) came out at
/// 775 KB (now 47 KB), the conformance suite's transparent loops at 2-3 times what `gifsicle -O3`
/// makes (now 1.1-1.5 times), a 40 px ball moving over a transparent 200x200 at 14,084 B (now
/// 12,358; `gifsicle -O3` 12,190).
///
/// Which disposal a frame takes depends on the frame after it, so each frame is held until the
/// next has been seen (one frame: its indices, and the identical frames merged into it). The
/// first image covers the whole canvas (it sets the GIF's screen size). The last one clears the
/// canvas too unless the first covers it opaquely, for viewers that do not clear it themselves
/// when the animation loops.
struct TransparentChain {
    let options: GIFOptions
    /// One palette for the clip, with an entry free for the transparent index; nil for a palette per frame.
    let globalPalette: Palette?
    /// What changed since the last frame drawn, alpha included (`visible(_:)` pictures, so a
    /// pixel transparent in both is unchanged whatever colour it carries); its reference is what
    /// the viewer sees, emptied where the last frame clears.
    private var diff: FrameDiff
    /// Whether the first frame shows every pixel (then the loop needs no clear before it).
    private var firstCoversCanvas = false
    /// The last frame quantised, not passed on yet (its disposal waits for the next), and the
    /// repeats of it merged since.
    private var held: [QuantizedFrame] = []
    /// Whether a frame has been passed on.
    private var released = false

    init(options: GIFOptions, globalPalette: Palette?) {
        self.options = options
        self.globalPalette = globalPalette
        diff = FrameDiff(threshold: options.changeThreshold)
    }

    /// Takes the next frame (`measured`: with its source picture for the measure stage);
    /// returns the frames now ready to pass on, in order.
    mutating func add(_ image: RGBAImage, time: Double, measured: Bool) -> [QuantizedFrame] {
        let shown = Self.visible(image)
        var ready: [QuantizedFrame] = []
        var clears = false
        if let before = diff.reference {
            if let turned = Self.turnedTransparent(from: before, to: shown) {
                clears = true
                // The frame held clears what turns transparent (and its own rectangle): the
                // viewer's canvas is empty there, and this frame draws what shows in it again.
                let cleared: PixelRect
                (ready, cleared) = release(clearing: turned)
                diff.clear(cleared)
            }
        } else {
            firstCoversCanvas = !shown.pixels.withUnsafeBufferPointer { p in stride(from: 3, to: p.count, by: 4).contains { p[$0] == 0 } }
        }
        let change = diff.change(to: shown)
        // Nothing visibly changed (as opaque frames are merged: `GIFQuantizeStage`): the frame
        // held stays on screen longer. Not after a clear, which shows only once an image follows.
        if !change.isFirst, change.rect.isEmpty, options.mergeIdenticalFrames, !clears, !held.isEmpty {
            var repeated = QuantizedFrame(frame: GIFFrame(width: 0, height: 0, indices: []), time: time, isUnchanged: true)
            if measured { (repeated.sourceLuma, repeated.sourceImage) = (LumaPlane(image), image) }
            held.append(repeated)
            return ready
        }
        ready += release(clearing: nil).frames
        var quantized = quantize(image, shown: shown, change: change, time: time)
        if measured { (quantized.sourceLuma, quantized.sourceImage) = (LumaPlane(image), image) }
        held = [quantized]
        return ready
    }

    /// The stream ended: the frames held, the last one clearing the canvas unless the first covers it.
    mutating func finish() -> [QuantizedFrame] {
        guard let size = diff.reference else { return [] }
        return release(clearing: firstCoversCanvas ? nil : PixelRect(x: 0, y: 0, width: size.width, height: size.height)).frames
    }

    /// The frames held, the first (the image) given its disposal: "background" over its
    /// rectangle widened to take in `clearing` when the next frame needs that cleared, else
    /// "none"; and the rectangle cleared. The first image of the GIF covers the whole canvas.
    private mutating func release(clearing: PixelRect?) -> (frames: [QuantizedFrame], cleared: PixelRect) {
        let none = PixelRect(x: 0, y: 0, width: 0, height: 0)
        var frames = held
        guard !frames.isEmpty, let size = diff.reference else { return ([], none) }
        held = []
        let image = frames[0].frame
        var rect = released ? PixelRect(x: image.left, y: image.top, width: image.width, height: image.height)
                            : PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        released = true
        if let clearing { rect = Self.union(rect, clearing) }
        frames[0].frame = Self.widened(image, to: rect)
        frames[0].frame.disposal = clearing == nil ? .none : .background
        return (frames, clearing == nil ? none : rect)
    }

    /// The pixels that changed (drawn since the last clear, or after it those that show), quantised
    /// with their own palette (or the global one) and the transparent index for the rest.
    private func quantize(_ image: RGBAImage, shown: RGBAImage, change: FrameDiff.Change, time: Double) -> QuantizedFrame {
        // Drawn: what changed and shows (a pixel turned transparent is never drawn: the chain
        // clears before such a frame, and after a clear the canvas is empty).
        var mask = change.mask
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        let width = image.width
        // (Only the change's rectangle: the mask is false outside it.)
        let changed = change.rect
        shown.pixels.withUnsafeBufferPointer { p in
            for y in changed.y..<(changed.y + changed.height) {
                for x in changed.x..<(changed.x + changed.width) {
                    let i = y * width + x
                    guard mask[i] else { continue }
                    guard p[i * 4 + 3] != 0 else { mask[i] = false; continue }
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                }
            }
        }
        guard maxX >= 0 else {
            // Nothing to draw, but the frame must exist (its delay): one transparent pixel.
            let frame = GIFFrame(width: 1, height: 1, disposal: .none, transparentIndex: 0,
                                 localPalette: globalPalette != nil ? nil : [0, 0, 0, 0, 0, 0], indices: [0])
            return QuantizedFrame(frame: frame, time: time, isUnchanged: false)
        }
        let rect = PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        let palette = globalPalette ?? Quantizer(maxColors: options.colorsBesideTransparent, errorTarget: Double(options.paletteError))
            .palette(for: image, mask: mask)
        let transparent = UInt8(palette.count)
        var ditherer = Ditherer(palette: palette, method: options.dither)
        ditherer.deadline = options.limits.deadline
        let indices = ditherer.indices(for: image, rect: rect, mask: mask, transparentIndex: transparent)
        let frame = GIFFrame(left: rect.x, top: rect.y, width: rect.width, height: rect.height, disposal: .none,
                             transparentIndex: Int(transparent), localPalette: globalPalette != nil ? nil : palette.rgb + [0, 0, 0],
                             indices: indices)
        return QuantizedFrame(frame: frame, time: time, isUnchanged: false)
    }

    /// `frame` over `rect` (which holds its own rectangle): the pixels around it as its
    /// transparent index (it has one: every frame of the chain does), which show what is under them.
    static func widened(_ frame: GIFFrame, to rect: PixelRect) -> GIFFrame {
        guard frame.left != rect.x || frame.top != rect.y || frame.width != rect.width || frame.height != rect.height,
              let transparent = frame.transparentIndex else { return frame }
        var indices = [UInt8](repeating: UInt8(transparent), count: rect.width * rect.height)
        for y in 0..<frame.height {
            let from = y * frame.width, to = (frame.top - rect.y + y) * rect.width + frame.left - rect.x
            indices.replaceSubrange(to..<(to + frame.width), with: frame.indices[from..<(from + frame.width)])
        }
        var whole = frame
        (whole.left, whole.top, whole.width, whole.height, whole.indices) = (rect.x, rect.y, rect.width, rect.height, indices)
        return whole
    }

    /// The smallest rectangle holding both.
    static func union(_ a: PixelRect, _ b: PixelRect) -> PixelRect {
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        let x1 = max(a.x + a.width, b.x + b.width), y1 = max(a.y + a.height, b.y + b.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `image` as the GIF shows it: pixels under half alpha transparent (all four channels 0),
    /// the rest opaque.
    static func visible(_ image: RGBAImage) -> RGBAImage {
        var pixels = image.pixels
        pixels.withUnsafeMutableBufferPointer { p in
            for o in stride(from: 0, to: p.count, by: 4) {
                if p[o + 3] < 128 {
                    p[o] = 0; p[o + 1] = 0; p[o + 2] = 0; p[o + 3] = 0
                } else {
                    p[o + 3] = 255
                }
            }
        }
        return RGBAImage(width: image.width, height: image.height, pixels: pixels)
    }

    /// The bounding rectangle of the pixels that show in `before` and are transparent in
    /// `after` (`visible(_:)` pictures; the whole canvas when their sizes differ); nil when none does.
    static func turnedTransparent(from before: RGBAImage, to after: RGBAImage) -> PixelRect? {
        guard before.width == after.width, before.height == after.height else {
            return PixelRect(x: 0, y: 0, width: max(before.width, after.width), height: max(before.height, after.height))
        }
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        let width = before.width
        before.pixels.withUnsafeBufferPointer { b in
            after.pixels.withUnsafeBufferPointer { a in
                for y in 0..<before.height {
                    for x in 0..<width where b[(y * width + x) * 4 + 3] != 0 && a[(y * width + x) * 4 + 3] == 0 {
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        return maxX < 0 ? nil : PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}
