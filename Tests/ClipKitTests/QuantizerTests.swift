// Quantizer: lossless when the colours fit, bounded error when they do not, masks honoured, deterministic.
import Testing
@testable import ClipKit

@Suite struct QuantizerTests {
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

    /// `count` distinct colours; `clustered` packs them into a 8x8x8 cube so many share a
    /// 6-bit cell of the remapping cache (the exact-hit path must still find each one).
    func distinctColors(_ count: Int, clustered: Bool, seed: UInt64) -> [(Int, Int, Int)] {
        var rng = SplitMix64(seed: seed)
        var seen = Set<Int>(), colors: [(Int, Int, Int)] = []
        while colors.count < count {
            let c = clustered ? (100 + rng.channel(0...7), 30 + rng.channel(0...7), 200 + rng.channel(0...7))
                : (rng.channel(), rng.channel(), rng.channel())
            if seen.insert(c.0 << 16 | c.1 << 8 | c.2).inserted { colors.append(c) }
        }
        return colors
    }

    func rgbSet(_ palette: Palette) -> Set<Int> {
        Set((0..<palette.count).map { let c = palette.color($0); return Int(c.r) << 16 | Int(c.g) << 8 | Int(c.b) })
    }

    /// The image remapped through `palette` with `method`, as RGBA.
    func remap(_ image: RGBAImage, _ palette: Palette, _ method: DitherMethod = .none) -> RGBAImage {
        var ditherer = Ditherer(palette: palette, method: method)
        let indices = ditherer.indices(for: image, rect: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
                                       mask: nil, transparentIndex: nil)
        return RGBAImage(width: image.width, height: image.height, pixels: indices.flatMap { i -> [UInt8] in
            let c = palette.color(Int(i)); return [c.r, c.g, c.b, 255]
        })
    }

    @Test(arguments: [(255, false), (255, true), (256, false), (256, true)])
    func fewColoursAreKeptExactly(count: Int, clustered: Bool) {
        // Each colour repeated a different number of times: counts must not matter for exactness.
        let colors = distinctColors(count, clustered: clustered, seed: UInt64(count))
        let source = image(count, 3) { x, y in colors[(x * (y + 1)) % count] }
        for maxColors in Set([count, 256]) {
            let palette = Quantizer(maxColors: maxColors).palette(for: source)
            #expect(palette.count == count, "maxColors \(maxColors)")
            #expect(rgbSet(palette) == Set(colors.map { $0.0 << 16 | $0.1 << 8 | $0.2 }), "every colour, nothing else")
            // Remapping is lossless, with or without error diffusion (there is no error to diffuse).
            #expect(remap(source, palette) == source)
            #expect(remap(source, palette, .floydSteinberg) == source)
        }
    }

    @Test func oneColourTooManyIsReduced() {
        // 257 colours do not fit 256 entries: the palette is reduced, not silently overfilled.
        let colors = distinctColors(257, clustered: false, seed: 257)
        let source = image(257, 1) { x, _ in colors[x] }
        #expect(Quantizer(maxColors: 256).palette(for: source).count <= 256)
        // And 255 colours do not fit a 254-entry palette.
        let fewer = image(255, 1) { x, _ in colors[x] }
        #expect(Quantizer(maxColors: 254).palette(for: fewer).count <= 254)
    }

    @Test(arguments: [1, 2, 16, 64, 255, 256])
    func manyColoursGiveAtMostMaxColors(maxColors: Int) {
        // 64x64 of random noise: 4096 colours, far more than any palette holds.
        var rng = SplitMix64(seed: 99)
        let source = image(64, 64) { _, _ in (rng.channel(), rng.channel(), rng.channel()) }
        let palette = Quantizer(maxColors: maxColors).palette(for: source)
        #expect(palette.count >= 1 && palette.count <= maxColors)
        #expect(rgbSet(palette).count == palette.count, "no duplicate entries")
    }

    /// Gradients whose colours fall into few 5-bit bins get a palette of their own colours, not
    /// one colour a bin: a 256-level grey ramp into 255 colours was 32 greys 8 levels apart
    /// (mean error 2, in bands), a diagonal gradient of 709 colours 88 of them.
    @Test func gradientsInFewBinsUseTheWholePalette() {
        let ramp = image(256, 4) { x, _ in (x, x, x) }
        let greys = Quantizer(maxColors: 255).palette(for: ramp)
        #expect(greys.count == 255)
        let rampError = meanAbsoluteDifference(ramp, remap(ramp, greys))
        #expect(rampError < 0.05, "mean per-channel error \(rampError) on the grey ramp")
        // From (16, 32, 80) to (255, 208, 160) across 480x270: 736 colours in 106 bins.
        let diagonal = image(480, 270) { x, y in
            let t = Double(x + y) / Double(479 + 269)
            return (16 + Int(t * 239), 32 + Int(t * 176), 80 + Int(t * 80))
        }
        let palette = Quantizer(maxColors: 255).palette(for: diagonal)
        #expect(palette.count >= 250, "\(palette.count) colours")
        let error = meanAbsoluteDifference(diagonal, remap(diagonal, palette))
        #expect(error < 0.5, "mean per-channel error \(error) on the diagonal gradient")
        // Past the counted limit the bins serve as before (natural pictures fill them anyway).
        #expect(ColorHistogram.countedColors(of: diagonal, mask: nil, limit: 100) == nil)
    }

    @Test func smoothGradientErrorIsSmall() {
        // A 256x256 gradient (red across, green down, blue the mix): 65536 colours into 64.
        // A regular 4x4x4 grid (levels 32, 96, 160, 224) would give a mean error of 16 per channel;
        // median cut plus k-means must adapt to where the colours are (blue follows the other two).
        // Measured: 7.1.
        let source = image(256, 256) { x, y in (x, y, (x + y) / 2) }
        let palette = Quantizer(maxColors: 64).palette(for: source)
        #expect(palette.count <= 64)
        let error = meanAbsoluteDifference(source, remap(source, palette))
        #expect(error < 8, "mean per-channel error \(error)")
        // A gray ramp into 16 grays: an even split is 16 levels apart, a mean error of 4 (measured: 4.0).
        let ramp = image(256, 16) { x, _ in (x, x, x) }
        let grays = Quantizer(maxColors: 16).palette(for: ramp)
        let rampError = meanAbsoluteDifference(ramp, remap(ramp, grays))
        #expect(grays.count <= 16)
        #expect(rampError < 5, "mean per-channel error \(rampError) on the gray ramp")
    }

    @Test func anErrorTargetStopsAtTheColoursAPictureNeeds() {
        // A "screen": 12 flat UI colours in blocks under a noise of up to 3 levels per channel
        // (hundreds of distinct colours, so no exact table), against a gradient of 65536 colours.
        var rng = SplitMix64(seed: 12)
        let ui = distinctColors(12, clustered: false, seed: 5)
        let screen = image(96, 64) { x, y in
            let c = ui[(x / 16 + (y / 16) * 6) % 12]
            return (min(c.0 + rng.channel(0...3), 255), min(c.1 + rng.channel(0...3), 255), min(c.2 + rng.channel(0...3), 255))
        }
        let gradient = image(256, 256) { x, y in (x, y, (x + y) / 2) }
        for target in [30.0, 60.0] {
            let few = Quantizer(maxColors: 256, errorTarget: target).palette(for: screen)
            #expect((12...20).contains(few.count), "target \(target): \(few.count) colours for 12 flat ones")
            // Remapped through it the screen stays within the noise (measured: 0.92 per channel).
            #expect(meanAbsoluteDifference(screen, remap(screen, few)) < 1.5)
            // The gradient is far from any such target at 128 colours: it keeps them all.
            #expect(Quantizer(maxColors: 128, errorTarget: target).palette(for: gradient).count == 128)
        }
        // No target: colours go on being split down to the histogram's bins (29 here).
        #expect(Quantizer(maxColors: 256).palette(for: screen).count > 24)
        // Never fewer than two colours, however loose the target.
        #expect(Quantizer(maxColors: 256, errorTarget: 1e9).palette(for: gradient).count == 2)
    }

    @Test func maskedOutPixelsDoNotInfluenceThePalette() {
        // Left half: shades of red (few, so exact); right half: blue noise, masked out.
        var rng = SplitMix64(seed: 7)
        let width = 64, height = 32
        let mask = (0..<(width * height)).map { $0 % width < width / 2 }
        let source = image(width, height) { x, y in
            x < width / 2 ? ((x * 8) & 255, 0, y & 1) : (rng.channel(), rng.channel(), 255)
        }
        let palette = Quantizer().palette(for: source, mask: mask)
        var expected = Set<Int>()
        for y in 0..<height { for x in 0..<(width / 2) { expected.insert(((x * 8) & 255) << 16 | (y & 1)) } }
        #expect(rgbSet(palette) == expected, "only the unmasked colours, exactly")

        // Too many unmasked colours for an exact table: still nothing of the masked-out half.
        let many = image(width, height) { x, y in
            x < width / 2 ? (x * 8, y * 8, 0) : (rng.channel(), rng.channel(), 255)
        }
        let reduced = Quantizer(maxColors: 16).palette(for: many, mask: mask)
        #expect((0..<reduced.count).allSatisfy { reduced.color($0).b < 8 }, "\(reduced.rgb)")
        // Changing masked-out pixels changes nothing at all.
        let other = image(width, height) { x, y in
            x < width / 2 ? (x * 8, y * 8, 0) : (255, 255, rng.channel())
        }
        #expect(Quantizer(maxColors: 16).palette(for: other, mask: mask) == reduced)
        // A mask with every pixel in it is the same as no mask.
        #expect(Quantizer(maxColors: 16).palette(for: many, mask: [Bool](repeating: true, count: width * height))
                == Quantizer(maxColors: 16).palette(for: many))
    }

    @Test func sameColoursGiveTheSamePalette() {
        // Same pixels -> same palette; the same pixels in another order (the same histogram),
        // or counted in two halves, must give the same table too, since only the histogram matters.
        var rng = SplitMix64(seed: 2024)
        let colors = (0..<4096).map { _ in (rng.channel(), rng.channel(0...127), rng.channel()) }
        let source = image(64, 64) { x, y in colors[y * 64 + x] }
        let shuffled = image(64, 64) { x, y in colors[(y * 64 + x) * 1031 % 4096] }
        let quantizer = Quantizer(maxColors: 48)
        let palette = quantizer.palette(for: source)
        #expect(palette.count > 32, "the noise needs most of the 48 entries: \(palette.count)")
        #expect(quantizer.palette(for: source) == palette)
        #expect(quantizer.palette(for: shuffled) == palette)
        var histogram = ColorHistogram()
        histogram.add(source, mask: (0..<4096).map { $0 < 2000 })
        histogram.add(source, mask: (0..<4096).map { $0 >= 2000 })
        #expect(quantizer.palette(for: histogram) == palette)
    }
}
