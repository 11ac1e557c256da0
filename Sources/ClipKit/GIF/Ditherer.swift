// Maps RGBA pixels to palette indices: error diffusion (Floyd-Steinberg, Sierra Lite), ordered (Bayer) or none.

/// How colours missing from the palette are approximated.
public enum DitherMethod: String, Sendable, CaseIterable {
    /// Error diffusion, serpentine Floyd-Steinberg: the most faithful colour.
    case floydSteinberg = "floyd-steinberg"
    /// Error diffusion with Sierra Lite's three-tap kernel (what ffmpeg's sierra2_4a does).
    case sierra
    /// Ordered 8x8 Bayer: compresses better and does not crawl between frames.
    case bayer
    /// Nearest colour only.
    case none
}

/// Remaps a rectangle of an image to a palette.
struct Ditherer {
    let palette: Palette
    let method: DitherMethod
    private var lookup: NearestColorLookup

    /// Past this, the remaining rows are left at the transparent index: the caller checks the
    /// deadline after the call and throws, so a huge frame cannot hold a stage past `--timeout`.
    var deadline = Deadline.none

    /// What the viewer sees under the image, RGB per image pixel (the whole canvas, the image's
    /// size), or nil. With it and a transparent index, a pixel shows what is already there
    /// (transparent) whenever that is at least as close to the wanted colour, error included,
    /// as the nearest palette colour: a still area keeps its dither pattern from frame to frame
    /// instead of being dithered anew (which flickers and costs bytes), and what it keeps is
    /// judged against what the viewer sees, its error diffused like any other choice.
    var canvas: [UInt8]?
    /// How much farther (`Palette.distance` units) what is shown may be than the nearest palette colour.
    var keepTolerance = 0

    init(palette: Palette, method: DitherMethod) {
        self.palette = palette
        self.method = method
        self.lookup = NearestColorLookup(palette: palette)
    }

    /// Palette indices for the `rect` of `image`, row by row. Pixels whose `mask` entry (indexed
    /// over the whole image) is false get `transparentIndex` and neither give nor take error.
    mutating func indices(for image: RGBAImage, rect: PixelRect, mask: [Bool]?, transparentIndex: UInt8?) -> [UInt8] {
        guard let canvas else { return indices(for: image, rect: rect, mask: mask, transparentIndex: transparentIndex, canvas: nil) }
        return canvas.withUnsafeBufferPointer {
            indices(for: image, rect: rect, mask: mask, transparentIndex: transparentIndex, canvas: $0)
        }
    }

    /// `indices(for:rect:mask:transparentIndex:)` keeping what the viewer sees in `canvas` (in
    /// place of the `canvas` property), which may still be coming in: `rowReady` is called with
    /// each row of the image (top to bottom) before the row is dithered, and brings the canvas
    /// up to date there. (Only a pixel's own canvas colour is read, never a row below it.)
    mutating func indices(for image: RGBAImage, rect: PixelRect, mask: [Bool]?, transparentIndex: UInt8?,
                          canvas: UnsafeBufferPointer<UInt8>?, rowReady: (Int) -> Void = { _ in }) -> [UInt8] {
        var out = [UInt8](repeating: transparentIndex ?? 0, count: rect.width * rect.height)
        if rect.width == 0 || rect.height == 0 { return out }
        precondition(canvas.map { $0.count == image.width * image.height * 3 } ?? true, "the canvas is the image's size")
        let keep = CanvasKeeping(canvas: canvas, transparentIndex: transparentIndex, tolerance: keepTolerance, palette: palette.rgb)
        switch method {
        case .floydSteinberg, .sierra:
            diffuse(image, rect: rect, mask: mask, keep: keep, rowReady: rowReady, into: &out)
        case .bayer:
            ordered(image, rect: rect, mask: mask, keep: keep, rowReady: rowReady, into: &out)
        case .none:
            nearest(image, rect: rect, mask: mask, keep: keep, rowReady: rowReady, into: &out)
        }
        return out
    }

    private mutating func nearest(_ image: RGBAImage, rect: PixelRect, mask: [Bool]?, keep: CanvasKeeping?, rowReady: (Int) -> Void,
                                  into out: inout [UInt8]) {
        let w = image.width
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<rect.height {
                if y & 63 == 63 && deadline.hasPassed { break }
                rowReady(rect.y + y)
                for x in 0..<rect.width {
                    let i = (rect.y + y) * w + rect.x + x
                    if let mask, !mask[i] { continue }
                    let r = Int(p[i * 4]), g = Int(p[i * 4 + 1]), b = Int(p[i * 4 + 2])
                    let index = lookup.nearest(r, g, b)
                    out[y * rect.width + x] = keep?.choice(r, g, b, index: index, pixel: i) ?? index
                }
            }
        }
    }

    private static let bayer8: [Int] = {
        // The classic recursive 8x8 Bayer matrix, values 0...63.
        var m = [0]
        var n = 1
        while n < 8 {
            var next = [Int](repeating: 0, count: 4 * n * n)
            for y in 0..<n {
                for x in 0..<n {
                    let v = m[y * n + x] * 4
                    next[y * 2 * n + x] = v
                    next[y * 2 * n + x + n] = v + 2
                    next[(y + n) * 2 * n + x] = v + 3
                    next[(y + n) * 2 * n + x + n] = v + 1
                }
            }
            m = next
            n *= 2
        }
        return m
    }()

    private mutating func ordered(_ image: RGBAImage, rect: PixelRect, mask: [Bool]?, keep: CanvasKeeping?, rowReady: (Int) -> Void,
                                  into out: inout [UInt8]) {
        let w = image.width
        // Spread of the threshold: about the gap between neighbouring palette colours.
        let strength = max(4.0, 48.0 / Double(palette.count).squareRoot())
        let offsets = Self.bayer8.map { Int(((Double($0) + 0.5) / 64 - 0.5) * strength) }
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<rect.height {
                if y & 63 == 63 && deadline.hasPassed { break }
                let sy = rect.y + y
                rowReady(sy)
                for x in 0..<rect.width {
                    let sx = rect.x + x
                    let i = sy * w + sx
                    if let mask, !mask[i] { continue }
                    // Anchored to canvas coordinates so the pattern stays still from frame to frame.
                    let o = offsets[(sy & 7) * 8 + (sx & 7)]
                    let r = clamp(Int(p[i * 4]) + o), g = clamp(Int(p[i * 4 + 1]) + o), b = clamp(Int(p[i * 4 + 2]) + o)
                    let index = lookup.nearest(r, g, b)
                    out[y * rect.width + x] = keep?.choice(r, g, b, index: index, pixel: i) ?? index
                }
            }
        }
    }

    /// Error diffusion, serpentine. A hot loop: the error rows are read through unsafe buffers
    /// with wrapping arithmetic. Every index is in bounds by construction (the rows have one
    /// pixel of margin each side, `x` stays in the rect, the rect in the image, a channel's error
    /// indexes `DiffusionTaps`), and the taps are capped, so no sum can overflow.
    private mutating func diffuse(_ image: RGBAImage, rect: PixelRect, mask: [Bool]?, keep: CanvasKeeping?, rowReady: (Int) -> Void,
                                  into out: inout [UInt8]) {
        precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= image.width && rect.y + rect.height <= image.height
                     && out.count == rect.width * rect.height && (mask.map { $0.count == image.width * image.height } ?? true))
        let w = image.width, rw = rect.width
        // Error rows with one pixel of margin each side, in 1/16ths of a level.
        var currentRow = [Int32](repeating: 0, count: (rw + 2) * 3)
        var nextRow = [Int32](repeating: 0, count: (rw + 2) * 3)
        let kernel = (method == .sierra ? DiffusionTaps.sierraLite : DiffusionTaps.floydSteinberg).table
        let pal = palette.rgb
        image.pixels.withUnsafeBufferPointer { p in
            pal.withUnsafeBufferPointer { pal in
                kernel.withUnsafeBufferPointer { taps in
                    out.withUnsafeMutableBufferPointer { out in
                        for y in 0..<rect.height {
                            if y & 63 == 63 && deadline.hasPassed { break }
                            let leftToRight = y % 2 == 0
                            let sy = rect.y + y
                            rowReady(sy)
                            currentRow.withUnsafeMutableBufferPointer { current in
                                nextRow.withUnsafeMutableBufferPointer { next in
                                    for step in 0..<rw {
                                        let x = leftToRight ? step : rw &- 1 &- step
                                        let i = sy &* w &+ rect.x &+ x
                                        if let mask, !mask[i] { continue }
                                        let e = (x &+ 1) &* 3
                                        let i4 = i &* 4
                                        let r = clamp(Int(p[i4]) &+ Int(current[e]) / 16)
                                        let g = clamp(Int(p[i4 &+ 1]) &+ Int(current[e &+ 1]) / 16)
                                        let b = clamp(Int(p[i4 &+ 2]) &+ Int(current[e &+ 2]) / 16)
                                        let nearest = lookup.nearest(r, g, b)
                                        let index = keep?.choice(r, g, b, index: nearest, pixel: i) ?? nearest
                                        out[y &* rw &+ x] = index
                                        let shown = index == nearest ? (Int(pal[Int(index) &* 3]), Int(pal[Int(index) &* 3 &+ 1]), Int(pal[Int(index) &* 3 &+ 2]))
                                                                     : keep!.canvasColor(i)
                                        // The taps of each channel's error; both are 0...255, so the taps lie within the table.
                                        let tr = DiffusionTaps.offset(ofError: r &- shown.0)
                                        let tg = DiffusionTaps.offset(ofError: g &- shown.1)
                                        let tb = DiffusionTaps.offset(ofError: b &- shown.2)
                                        let ahead = leftToRight ? e &+ 3 : e &- 3
                                        let behind = leftToRight ? e &- 3 : e &+ 3
                                        current[ahead] &+= taps[tr]; current[ahead &+ 1] &+= taps[tg]; current[ahead &+ 2] &+= taps[tb]
                                        next[behind] &+= taps[tr &+ 1]; next[behind &+ 1] &+= taps[tg &+ 1]; next[behind &+ 2] &+= taps[tb &+ 1]
                                        next[e] &+= taps[tr &+ 2]; next[e &+ 1] &+= taps[tg &+ 2]; next[e &+ 2] &+= taps[tb &+ 2]
                                        next[ahead] &+= taps[tr &+ 3]; next[ahead &+ 1] &+= taps[tg &+ 3]; next[ahead &+ 2] &+= taps[tb &+ 3]
                                    }
                                }
                            }
                            swap(&currentRow, &nextRow)
                            nextRow.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                        }
                    }
                }
            }
        }
    }
}

@inline(__always) private func clamp(_ v: Int) -> Int { v < 0 ? 0 : (v > 255 ? 255 : v) }

/// The choice between a fresh palette colour and what the viewer already sees.
private struct CanvasKeeping {
    /// RGB per image pixel (its count checked by the caller).
    let canvas: UnsafeBufferPointer<UInt8>
    let transparentIndex: UInt8
    let tolerance: Int
    let palette: [UInt8]

    /// nil when there is nothing to keep (no canvas, or no transparent index).
    init?(canvas: UnsafeBufferPointer<UInt8>?, transparentIndex: UInt8?, tolerance: Int, palette: [UInt8]) {
        guard let canvas, let transparentIndex else { return nil }
        (self.canvas, self.transparentIndex, self.tolerance, self.palette) = (canvas, transparentIndex, tolerance, palette)
    }

    @inline(__always) func canvasColor(_ pixel: Int) -> (Int, Int, Int) {
        (Int(canvas[pixel * 3]), Int(canvas[pixel * 3 + 1]), Int(canvas[pixel * 3 + 2]))
    }

    /// The transparent index when the canvas shows the wanted colour (r, g, b) at least as well
    /// as palette entry `index` does, else `index`.
    @inline(__always) func choice(_ r: Int, _ g: Int, _ b: Int, index: UInt8, pixel: Int) -> UInt8 {
        let c = canvasColor(pixel), p = Int(index) * 3
        let kept = Palette.distance(r, g, b, c.0, c.1, c.2)
        let fresh = Palette.distance(r, g, b, Int(palette[p]), Int(palette[p + 1]), Int(palette[p + 2]))
        return kept <= fresh + tolerance ? transparentIndex : index
    }
}

/// A rectangle of pixels.
struct PixelRect: Sendable, Equatable {
    var x: Int, y: Int, width: Int, height: Int
    init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    var isEmpty: Bool { width <= 0 || height <= 0 }
}

/// Nearest palette colour, memoised on 6 bits per channel: error diffusion asks for the same
/// colours again and again. Bins that hold a palette colour check for an exact hit first, so a
/// colour that is in the palette always maps to itself (lossless when the colours fit).
struct NearestColorLookup {
    private let search: PaletteSearch
    private var cache: [UInt16]
    /// Open-addressed set of the palette's colours (key + 1, 0 = empty) and their indices.
    private var exactKeys = [UInt32](repeating: 0, count: 1024)
    private var exactIndex = [UInt8](repeating: 0, count: 1024)
    private static let hasExact: UInt16 = 0x200, known: UInt16 = 0x100

    init(palette: Palette) {
        search = PaletteSearch(palette: palette)
        cache = [UInt16](repeating: 0, count: 1 << 18)
        for i in stride(from: palette.count - 1, through: 0, by: -1) {
            let c = palette.color(i)
            let key = UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)
            var slot = Int((key &* 2654435761) >> 22)
            while exactKeys[slot] != 0 && exactKeys[slot] != key + 1 { slot = (slot + 1) & 1023 }
            exactKeys[slot] = key + 1
            exactIndex[slot] = UInt8(i)
            cache[Self.bin(Int(c.r), Int(c.g), Int(c.b))] = Self.hasExact
        }
    }

    @inline(__always) private static func bin(_ r: Int, _ g: Int, _ b: Int) -> Int { (r >> 2) << 12 | (g >> 2) << 6 | (b >> 2) }

    @inline(__always)
    mutating func nearest(_ r: Int, _ g: Int, _ b: Int) -> UInt8 {
        let key = Self.bin(r, g, b)
        var cached = cache[key]
        if cached & Self.hasExact != 0 {
            let colorKey = UInt32(r << 16 | g << 8 | b)
            var slot = Int((colorKey &* 2654435761) >> 22)
            while exactKeys[slot] != 0 {
                if exactKeys[slot] == colorKey + 1 { return exactIndex[slot] }
                slot = (slot + 1) & 1023
            }
        }
        if cached & Self.known == 0 {
            let index = search.nearest((r & ~3) + 2, (g & ~3) + 2, (b & ~3) + 2)
            cached |= Self.known | UInt16(index)
            cache[key] = cached
        }
        return UInt8(cached & 0xFF)
    }
}
