// Frames with transparency: each drawn over the last where no pixel turns transparent, else the
// last one clears the canvas.

/// The quantise stage's state for frames with transparency (`GIFQuantizeStage.transparentFrames`).
///
/// A GIF can turn a shown pixel transparent only by clearing: disposal "background" empties the
/// image's rectangle once it has been shown. So where a frame turns no visible pixel transparent
/// (it only adds or changes colours: a picture built up stroke by stroke, a sticker whose edges
/// stay put), it is drawn over the last: the rectangle of what changed, unchanged and transparent
/// pixels as the transparent index, and the last frame's disposal "none". Where one pixel turns
/// transparent, the last frame is widened to the whole canvas (its new pixels transparent, so it
/// shows the same) with disposal "background", and the frame is drawn on the empty canvas: the
/// rectangle of its visible pixels. Before this, every frame was written whole, each clearing the
/// last: a GIF drawn one pixel per frame (4,001 images of 1x1, 92 KB) came out at 775 KB, and
/// the conformance suite's transparent animations at 2-3 times what `gifsicle -O3` makes.
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
    /// the viewer sees. Reset at each clear.
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
        if let before = diff.reference {
            if Self.turnsTransparent(from: before, to: shown) {
                ready = release(clearing: true)
                diff = FrameDiff(threshold: options.changeThreshold)
            }
        } else {
            firstCoversCanvas = !shown.pixels.withUnsafeBufferPointer { p in stride(from: 3, to: p.count, by: 4).contains { p[$0] == 0 } }
        }
        let change = diff.change(to: shown)
        // Nothing visibly changed (as opaque frames are merged: `GIFQuantizeStage`): the frame
        // held stays on screen longer.
        if !change.isFirst, change.rect.isEmpty, options.mergeIdenticalFrames {
            var repeated = QuantizedFrame(frame: GIFFrame(width: 0, height: 0, indices: []), time: time, isUnchanged: true)
            if measured { (repeated.sourceLuma, repeated.sourceImage) = (LumaPlane(image), image) }
            held.append(repeated)
            return ready
        }
        ready += release(clearing: false)
        var quantized = quantize(image, shown: shown, change: change, time: time)
        if measured { (quantized.sourceLuma, quantized.sourceImage) = (LumaPlane(image), image) }
        held = [quantized]
        return ready
    }

    /// The stream ended: the frames held, the last one clearing the canvas unless the first covers it.
    mutating func finish() -> [QuantizedFrame] {
        release(clearing: !firstCoversCanvas)
    }

    /// The frames held, the first (the image) given its disposal: "background" over the whole
    /// canvas when the next frame needs it cleared, else "none".
    private mutating func release(clearing: Bool) -> [QuantizedFrame] {
        guard var frames = Optional(held), !frames.isEmpty, let size = diff.reference else { return [] }
        held = []
        // (The first image sets the GIF's screen size: it covers the canvas too.)
        if clearing || !released { frames[0].frame = Self.widened(frames[0].frame, width: size.width, height: size.height) }
        released = true
        frames[0].frame.disposal = clearing ? .background : .none
        return frames
    }

    /// The pixels that changed (drawn since the last clear, or after it those that show), quantised
    /// with their own palette (or the global one) and the transparent index for the rest.
    private func quantize(_ image: RGBAImage, shown: RGBAImage, change: FrameDiff.Change, time: Double) -> QuantizedFrame {
        // Drawn: what changed and shows (a pixel turned transparent is never drawn: the chain
        // clears before such a frame, and after a clear the canvas is empty).
        var mask = change.mask
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        let width = image.width
        shown.pixels.withUnsafeBufferPointer { p in
            for y in 0..<image.height {
                for x in 0..<width {
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

    /// `frame` over the whole `width` x `height` canvas: the pixels around its rectangle as its
    /// transparent index (it has one: every frame of the chain does).
    static func widened(_ frame: GIFFrame, width: Int, height: Int) -> GIFFrame {
        guard frame.left != 0 || frame.top != 0 || frame.width != width || frame.height != height,
              let transparent = frame.transparentIndex else { return frame }
        var indices = [UInt8](repeating: UInt8(transparent), count: width * height)
        for y in 0..<frame.height {
            let from = y * frame.width, to = (frame.top + y) * width + frame.left
            indices.replaceSubrange(to..<(to + frame.width), with: frame.indices[from..<(from + frame.width)])
        }
        var whole = frame
        (whole.left, whole.top, whole.width, whole.height, whole.indices) = (0, 0, width, height, indices)
        return whole
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

    /// Whether a pixel that shows in `before` is transparent in `after` (`visible(_:)` pictures).
    static func turnsTransparent(from before: RGBAImage, to after: RGBAImage) -> Bool {
        guard before.width == after.width, before.height == after.height else { return true }
        return before.pixels.withUnsafeBufferPointer { b in
            after.pixels.withUnsafeBufferPointer { a in
                stride(from: 3, to: b.count, by: 4).contains { b[$0] != 0 && a[$0] == 0 }
            }
        }
    }
}
