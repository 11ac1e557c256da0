// The quantise stage of the GIF pipeline: what changed since the last frame, its palette, its dithered indices.

/// Turns upright source frames into GIF images. Owns the frame-difference state, so it runs on
/// one thread and sees frames in order.
struct GIFQuantizeStage {
    let options: GIFOptions
    /// One palette for the clip (`--palette global`), or nil for a palette per frame.
    let globalPalette: Palette?
    /// Frames with transparency go through `chain`: each drawn over the last, which clears a
    /// rectangle taking in the pixels that turn transparent.
    let transparentFrames: Bool
    /// The input, which limit errors name.
    let source: String
    private var diff: FrameDiff
    /// Frames with transparency: their changes, and what each clears (nil for opaque frames).
    private var chain: TransparentChain?
    /// What the GIF shows so far, RGB per pixel, as quantised when written exact; nil when
    /// unknown.
    private var shown: [UInt8]?
    /// What the GIF shows so far under lossy LZW (`GIFOptions.feedsShownBack`), as the writer
    /// reports it for each frame handed on that is not `isUnchanged`. The next frame's
    /// difference and palette are worked out while the writer encodes, and its rows dithered as
    /// the writer's rows come in.
    private var follower: ShownFollower?
    /// Small pictures (`--palette auto`): the frames held until their palette is known, from the
    /// first frame until they are released (nil before the first frame and after, or when the
    /// frames keep their own palettes).
    private var pool: SharedPalettePool?
    /// The palette the pool's frames share: the GIF's global table, with an entry free for the
    /// transparent index (nil when frames have their own).
    private var sharedPalette: Palette?
    /// Whether the first frame has arrived (the pool is decided on it).
    private var started = false

    init(options: GIFOptions, globalPalette: Palette?, transparentFrames: Bool, source: String,
         shownFeedback: BoundedQueue<ShownReport>? = nil) {
        self.options = options
        follower = shownFeedback.map(ShownFollower.init(reports:))
        self.globalPalette = globalPalette
        self.transparentFrames = transparentFrames
        self.source = source
        diff = FrameDiff(threshold: options.changeThreshold)
        if transparentFrames { chain = TransparentChain(options: options, globalPalette: globalPalette) }
    }

    /// The stage body: frames in, quantised frames out, the end passed on with the output
    /// duration (frames arrive in output time).
    mutating func run(_ input: BoundedQueue<DecodedMessage>, _ output: BoundedQueue<QuantizedMessage>) throws {
        while let message = try input.pop() {
            switch message {
            case .frame(let frame):
                if !started {
                    started = true
                    if globalPalette == nil, !transparentFrames,
                       SharedPalettePool.applies(width: frame.image.width, height: frame.image.height, options: options) {
                        pool = SharedPalettePool(budget: SharedPalettePool.budget(limits: options.limits), maxFrames: options.limits.maxFrames,
                                                 colors: options.colorsBesideTransparent)
                    }
                }
                try options.limits.checkDeadline(source)
                if pool?.hold(frame) == true { continue }
                // Past the budget: the frames held take their palette, the rest their own.
                guard try release(to: output) else { return }
                guard try quantizeAndPass(frame, to: output) else { return }
            case .end(let duration, let warnings):
                guard try release(to: output) else { return }
                for last in chain?.finish() ?? [] {
                    if !output.push(.frame(last)) { return }
                }
                follower?.catchUp()
                output.push(.end(duration: duration, warnings: warnings))
                return
            }
        }
    }

    /// Quantises the frames the pool holds with the palette they share and passes them on;
    /// false when the output is closed.
    private mutating func release(to output: BoundedQueue<QuantizedMessage>) throws -> Bool {
        guard var held = pool else { return true }
        pool = nil
        let (palette, frames) = held.release(options: options)
        sharedPalette = palette
        for frame in frames {
            guard try quantizeAndPass(frame, to: output) else { return false }
        }
        sharedPalette = nil
        return true
    }

    /// Quantises one frame and passes it on; false when the output is closed.
    private mutating func quantizeAndPass(_ frame: VideoFrame, to output: BoundedQueue<QuantizedMessage>) throws -> Bool {
        // A huge frame takes a while to quantise: the deadline is checked around it, and
        // the ditherer gives up part-way once it has passed.
        try options.limits.checkDeadline(source)
        if chain != nil {
            // Frames with transparency: the frames before this one, now that it says how they end.
            let ready = chain!.add(frame.image, time: frame.time, measured: options.measure)
            try options.limits.checkDeadline(source)
            for quantized in ready {
                if !output.push(.frame(quantized)) { return false }
            }
            return true
        }
        var quantized = quantize(frame.image, time: frame.time)
        if options.measure { quantized.sourceLuma = LumaPlane(frame.image); quantized.sourceImage = frame.image }
        try options.limits.checkDeadline(source)
        // One image's reports outstanding at most, which the feedback queue holds, so the
        // writer never waits to report (an `isUnchanged` frame is not reported).
        if !quantized.isUnchanged { follower?.catchUp() }
        if !output.push(.frame(quantized)) { return false }
        if !quantized.isUnchanged {
            let f = quantized.frame
            follower?.expect(PixelRect(x: f.left, y: f.top, width: f.width, height: f.height), opaque: f.transparentIndex == nil,
                             width: frame.image.width, height: frame.image.height)
        }
        return true
    }

    /// An opaque frame quantised (frames with transparency go through `chain`).
    mutating func quantize(_ image: RGBAImage, time: Double) -> QuantizedFrame {
        quantizeChange(image, time: time)
    }

    /// A frame after the first keeps only what visibly changed: the changed rectangle, with
    /// unchanged pixels as the transparent index (disposal none keeps the rest on screen).
    private mutating func quantizeChange(_ image: RGBAImage, time: Double) -> QuantizedFrame {
        let change = diff.change(to: image)
        if !change.isFirst && change.rect.isEmpty {
            if options.mergeIdenticalFrames {
                return QuantizedFrame(frame: GIFFrame(width: 0, height: 0, indices: []), time: time, isUnchanged: true)
            }
            // Nothing to draw, but the frame must exist: one transparent pixel.
            let frame = GIFFrame(width: 1, height: 1, disposal: .none, transparentIndex: 0, localPalette: [0, 0, 0, 0, 0, 0], indices: [0])
            return QuantizedFrame(frame: frame, time: time, isUnchanged: false)
        }
        let mask: [Bool]? = change.isFirst ? nil : change.mask
        let palette = globalPalette ?? sharedPalette ?? Quantizer(maxColors: change.isFirst ? options.colors : options.colorsBesideTransparent,
                                                                  errorTarget: Double(options.paletteError))
            .palette(for: image, mask: mask)
        let transparent: UInt8? = change.isFirst ? nil : UInt8(palette.count)
        var ditherer = Ditherer(palette: palette, method: options.dither)
        ditherer.deadline = options.limits.deadline
        // What is shown is known exactly when written as quantised, or when the writer reports it.
        ditherer.keepTolerance = options.shownKeepTolerance
        let indices: [UInt8]
        if !change.isFirst, follower?.knows(width: image.width, height: image.height) == true {
            indices = follower!.following { canvas, rowReady in
                ditherer.indices(for: image, rect: change.rect, mask: mask, transparentIndex: transparent, canvas: canvas, rowReady: rowReady)
            }
        } else {
            if !change.isFirst, options.writesAsQuantised, let shown, shown.count == image.width * image.height * 3 {
                ditherer.canvas = shown
            }
            indices = ditherer.indices(for: image, rect: change.rect, mask: mask, transparentIndex: transparent)
        }
        if options.writesAsQuantised {
            record(indices, rect: change.rect, palette: palette, transparent: transparent, canvasWidth: image.width, canvasHeight: image.height)
        }
        // With a global palette the table (and its transparent slot) is the file's global one. A
        // shared palette's frames all name the first's table, with the free entry: the writer
        // makes it the global table and writes no table for the frames that name it again.
        let table: [UInt8]? = globalPalette != nil ? nil
            : (transparent == nil && sharedPalette == nil ? palette.rgb : palette.rgb + [0, 0, 0])
        let frame = GIFFrame(left: change.rect.x, top: change.rect.y, width: change.rect.width, height: change.rect.height,
                             disposal: .none, transparentIndex: transparent.map(Int.init), localPalette: table, indices: indices)
        return QuantizedFrame(frame: frame, time: time, isUnchanged: false)
    }

    /// Paints the opaque pixels of a quantised change onto `shown`.
    private mutating func record(_ indices: [UInt8], rect: PixelRect, palette: Palette, transparent: UInt8?, canvasWidth: Int, canvasHeight: Int) {
        if shown?.count != canvasWidth * canvasHeight * 3 { shown = [UInt8](repeating: 0, count: canvasWidth * canvasHeight * 3) }
        let rgb = palette.rgb
        shown!.withUnsafeMutableBufferPointer { canvas in
            for y in 0..<rect.height {
                for x in 0..<rect.width {
                    let index = indices[y * rect.width + x]
                    if index == transparent || Int(index) >= palette.count { continue }
                    let o = ((rect.y + y) * canvasWidth + rect.x + x) * 3, c = Int(index) * 3
                    canvas[o] = rgb[c]; canvas[o + 1] = rgb[c + 1]; canvas[o + 2] = rgb[c + 2]
                }
            }
        }
    }
}
