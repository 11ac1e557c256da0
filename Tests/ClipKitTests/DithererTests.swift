// Ditherer: each method really dithers (or, for none, maps to the nearest colour), keeps local colour, honours rect and mask.
import Testing
@testable import ClipKit

@Suite struct DithererTests {
    /// An opaque `width` x `height` image coloured by `color(x, y)`.
    func image(_ width: Int, _ height: Int, _ color: (Int, Int) -> (Int, Int, Int)) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y)
                pixels += [UInt8(c.0), UInt8(c.1), UInt8(c.2), 255]
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    func whole(_ image: RGBAImage) -> PixelRect { PixelRect(x: 0, y: 0, width: image.width, height: image.height) }

    func indices(_ image: RGBAImage, _ palette: Palette, _ method: DitherMethod, rect: PixelRect? = nil,
                 mask: [Bool]? = nil, transparentIndex: UInt8? = nil) -> [UInt8] {
        var ditherer = Ditherer(palette: palette, method: method)
        return ditherer.indices(for: image, rect: rect ?? whole(image), mask: mask, transparentIndex: transparentIndex)
    }

    /// How far the colour seen from a little way off is from the source (BlockMeanError).
    func blockMeanError(_ source: RGBAImage, _ palette: Palette, _ out: [UInt8]) -> Double {
        BlockMeanError.between(source, palette, out)
    }

    /// 16 evenly spaced grays, 17 levels apart.
    let grays = Palette(rgb: (0..<16).flatMap { (i: Int) -> [UInt8] in
        let level = UInt8(i * 17)
        return [level, level, level]
    })
    /// A slow horizontal gray ramp (a level every 4 pixels), so each 8x8 block is nearly flat and
    /// its mean falls anywhere between two palette grays.
    let ramp: RGBAImage
    /// A colour gradient, and a 16-colour palette for it.
    let gradient: RGBAImage
    let gradientPalette: Palette

    init() {
        var pixels: [UInt8] = []
        for _ in 0..<16 { for x in 0..<1024 { pixels += [UInt8(x / 4), UInt8(x / 4), UInt8(x / 4), 255] } }
        ramp = RGBAImage(width: 1024, height: 16, pixels: pixels)
        var colour: [UInt8] = []
        for y in 0..<256 { for x in 0..<256 { colour += [UInt8(x), UInt8(y), UInt8((x + y) / 2), 255] } }
        gradient = RGBAImage(width: 256, height: 256, pixels: colour)
        gradientPalette = Quantizer(maxColors: 16).palette(for: gradient)
    }

    @Test func everyMethodButNoneChangesTheOutput() {
        let plain = indices(ramp, grays, .none)
        var outputs: [DitherMethod: [UInt8]] = [:]
        for method in DitherMethod.allCases where method != .none {
            let out = indices(ramp, grays, method)
            outputs[method] = out
            let changed = zip(out, plain).filter { $0 != $1 }.count
            // A real dither changes a good share of a ramp, not a stray pixel or two.
            #expect(changed > ramp.width * ramp.height / 10, "\(method) changed \(changed) pixels")
        }
        // The three are different algorithms, not one under three names.
        #expect(outputs[.floydSteinberg] != outputs[.sierra])
        #expect(outputs[.floydSteinberg] != outputs[.bayer])
        #expect(outputs[.sierra] != outputs[.bayer])
    }

    @Test func ditheringKeepsTheLocalMeanColour() {
        // Measured: error diffusion ~1.4, Bayer ~1.9, none ~4.3 (a quarter of the 17-level step: the
        // mean distance to the nearest gray, which no block averages away).
        let none = blockMeanError(ramp, grays, indices(ramp, grays, .none))
        #expect(none > 3.5, "none: \(none)")
        for method in DitherMethod.allCases where method != .none {
            let error = blockMeanError(ramp, grays, indices(ramp, grays, method))
            #expect(error < 2.5, "\(method): block-mean error \(error), none \(none)")
        }
        // In colour, with a quantised palette: diffusion ~5.6, none ~12.9 (Bayer's spread is tuned
        // to a palette's typical gap, and is not checked on this deliberately coarse one).
        let colourNone = blockMeanError(gradient, gradientPalette, indices(gradient, gradientPalette, .none))
        #expect(colourNone > 10, "none: \(colourNone)")
        for method in [DitherMethod.floydSteinberg, .sierra] {
            let error = blockMeanError(gradient, gradientPalette, indices(gradient, gradientPalette, method))
            #expect(error < 7, "\(method): block-mean error \(error) in colour, none \(colourNone)")
        }
    }

    @Test func noneMapsEachPixelToTheNearestColour() {
        // `none` looks colours up through a cache of 6-bit cells (NearestColorLookup): a colour in
        // the palette maps to itself; any other maps to its exact nearest entry or, near the border
        // between two entries, to the entry nearest its cell's centre (at most 2 levels away).
        let palette = gradientPalette
        let colors = (0..<palette.count).map { let c = palette.color($0); return (Int(c.r), Int(c.g), Int(c.b)) }
        func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
            var best = Int.max, index = 0
            for i in colors.indices {
                let d = Palette.distance(r, g, b, colors[i].0, colors[i].1, colors[i].2)
                if d < best { best = d; index = i }
            }
            return index
        }
        // The gradient, with the palette's own colours written over the start of its top row.
        var source = gradient
        for (i, c) in colors.enumerated() {
            for k in 0..<3 { source.pixels[i * 4 + k] = UInt8([c.0, c.1, c.2][k]) }
        }
        let out = indices(source, palette, .none)
        var exactNearest = 0, wrong: [String] = []
        for i in 0..<(source.width * source.height) {
            let r = Int(source.pixels[i * 4]), g = Int(source.pixels[i * 4 + 1]), b = Int(source.pixels[i * 4 + 2])
            let got = Int(out[i])
            if let own = colors.firstIndex(where: { $0 == (r, g, b) }) {
                if got != own { wrong.append("palette colour \((r, g, b)) gave \(got), not itself (\(own))") }
                continue
            }
            let exact = nearest(r, g, b), cell = nearest((r & ~3) + 2, (g & ~3) + 2, (b & ~3) + 2)
            if got == exact {
                exactNearest += 1
            } else if got != cell {
                wrong.append("pixel \(i) \((r, g, b)) gave \(got): nearest is \(exact), nearest to its cell \(cell)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, first: \(wrong.prefix(3))")
        // The cell approximation only matters near the boundary between two entries.
        #expect(exactNearest > source.width * source.height * 95 / 100, "exact nearest for \(exactNearest) pixels")
    }

    @Test(arguments: DitherMethod.allCases)
    func rectAndMaskAreHonoured(method: DitherMethod) {
        var rng = SplitMix64(seed: 11)
        let source = image(40, 30) { x, y in (x * 6, y * 8, (x * y) & 255) }
        let rect = PixelRect(x: 5, y: 7, width: 20, height: 11)
        let mask = (0..<(40 * 30)).map { _ in rng.channel(0...9) < 7 }
        let transparent = UInt8(gradientPalette.count)
        let out = indices(source, gradientPalette, method, rect: rect, mask: mask, transparentIndex: transparent)
        #expect(out.count == rect.width * rect.height)
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let drawn = mask[(rect.y + y) * 40 + rect.x + x], index = out[y * rect.width + x]
                #expect(drawn ? index < transparent : index == transparent, "(\(x), \(y)) drawn \(drawn): \(index)")
            }
        }
        // Masked-out pixels neither give nor take error: repainting them changes nothing else.
        var repainted = source
        for i in mask.indices where !mask[i] {
            for k in 0..<3 { repainted.pixels[i * 4 + k] = UInt8(rng.channel()) }
        }
        #expect(indices(repainted, gradientPalette, method, rect: rect, mask: mask, transparentIndex: transparent) == out)
        // Without a mask, the rect is read at its own place in the image.
        let unmasked = indices(source, gradientPalette, method, rect: rect)
        switch method {
        case .none, .bayer:
            // Per pixel (Bayer's pattern anchored to the canvas, so it stays still between frames):
            // the same as the whole image's output at those canvas positions.
            let full = indices(source, gradientPalette, method)
            var crop: [UInt8] = []
            for y in rect.y..<(rect.y + rect.height) {
                let row = y * source.width + rect.x
                crop += full[row..<(row + rect.width)]
            }
            #expect(unmasked == crop)
        case .floydSteinberg, .sierra:
            // Error diffusion starts afresh in the rect: the same as the rect cut out on its own.
            let cut = image(rect.width, rect.height) { x, y in
                let p = source.pixel(x: rect.x + x, y: rect.y + y)
                return (Int(p.r), Int(p.g), Int(p.b))
            }
            #expect(unmasked == indices(cut, gradientPalette, method))
        }
        // An empty rect gives no indices.
        #expect(indices(source, gradientPalette, method, rect: PixelRect(x: 3, y: 3, width: 0, height: 5)).isEmpty)
    }

    @Test func aCanvasThatShowsThePictureIsKeptAndAForeignOneIsNot() {
        // The gradient dithered once; dithered again over what that shows, every pixel keeps it
        // (transparent); over a canvas of another picture (black), none does.
        for method in DitherMethod.allCases {
            let first = indices(gradient, gradientPalette, method)
            let shown = first.flatMap { i -> [UInt8] in let c = gradientPalette.color(Int(i)); return [c.r, c.g, c.b] }
            let transparent = UInt8(gradientPalette.count)
            var again = Ditherer(palette: gradientPalette, method: method)
            again.canvas = shown
            let kept = again.indices(for: gradient, rect: whole(gradient), mask: nil, transparentIndex: transparent)
            #expect(kept.allSatisfy { $0 == transparent }, "\(method): \(kept.filter { $0 != transparent }.count) redrawn")
            var over = Ditherer(palette: gradientPalette, method: method)
            over.canvas = [UInt8](repeating: 0, count: shown.count)
            over.keepTolerance = GIFOptions.keepTolerance
            let redrawn = over.indices(for: gradient, rect: whole(gradient), mask: nil, transparentIndex: transparent)
            // Only the darkest corner, where black is as close as any palette colour, keeps it.
            #expect(redrawn.filter { $0 == transparent }.count < redrawn.count / 50, "\(method)")
        }
    }
}
