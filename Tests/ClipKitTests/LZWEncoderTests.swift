// Our LZW encoder against our decoder and giflib: exact round trips, giflib's very bytes, lossy error bounds.
import CGIF
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct LZWEncoderTests {
    /// A deterministic pseudo-random generator (xorshift), so failures repeat.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// Index streams of every flavour: noise (fills the table, clear codes), runs, repeats.
    static func streams(codeSize: Int, count: Int, seed: UInt64) -> [[UInt8]] {
        var random = Random(state: seed | 1)
        let colors = 1 << codeSize
        let noise = (0..<count).map { _ in UInt8(random.below(colors)) }
        var runs: [UInt8] = []
        while runs.count < count {
            let value = UInt8(random.below(colors))
            runs += Array(repeating: value, count: min(count - runs.count, 1 + random.below(40)))
        }
        let few = (0..<count).map { _ in UInt8(random.below(min(colors, 3))) }
        let same = [UInt8](repeating: UInt8(colors - 1), count: count)
        return [noise, runs, few, same]
    }

    /// Encodes and splits the output into the code size and the data of its sub-blocks.
    static func encode(_ indices: [UInt8], codeSize: Int, lossy: LZWLossy? = nil) throws -> (bytes: [UInt8], blocks: [[UInt8]]) {
        var bytes: [UInt8] = []
        let encoder = LZWEncoder()
        try indices.withUnsafeBufferPointer { p in
            try encoder.encode(p, minimumCodeSize: codeSize, lossy: lossy) { bytes += $0 }
        }
        #expect(Int(bytes[0]) == codeSize)
        var blocks: [[UInt8]] = []
        var i = 1
        while bytes[i] != 0 {
            let n = Int(bytes[i])
            #expect(n == 255 || bytes[i + 1 + n] == 0, "only the last sub-block is short")
            blocks.append(Array(bytes[(i + 1)...(i + n)]))
            i += n + 1
        }
        #expect(i == bytes.count - 1, "the terminator ends the data")
        return (bytes, blocks)
    }

    static func decode(_ blocks: [[UInt8]], codeSize: Int, count: Int) -> [UInt8] {
        let decoder = LZWDecoder()
        decoder.reset(minimumCodeSize: codeSize)
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBufferPointer { o in
            for block in blocks { block.withUnsafeBufferPointer { decoder.decode($0, into: o) } }
        }
        #expect(decoder.state == .ended && decoder.position == count && !decoder.producedExcess && decoder.bytesAfterEnd == 0)
        return out
    }

    @Test func roundTripsThroughOurDecoder() throws {
        for codeSize in 2...8 {
            for count in [1, 2, 3, 4000, 70_000] {
                for (n, stream) in Self.streams(codeSize: codeSize, count: count, seed: UInt64(codeSize * 1000 + count)).enumerated() {
                    let (_, blocks) = try Self.encode(stream, codeSize: codeSize)
                    #expect(Self.decode(blocks, codeSize: codeSize, count: count) == stream, "size \(codeSize), \(count) px, stream \(n)")
                }
            }
        }
    }

    /// A GIF of one image written by giflib itself, as GIFEncoder lays it out (no loop extension).
    static func giflibGIF(_ frame: GIFFrame, palette: Palette, to url: URL) throws {
        var error: Int32 = 0
        guard let gif = EGifOpenFileName(url.path, false, &error) else { throw ClipKitError.internalFailure(path: url.path, reason: "open") }
        EGifSetGifVersion(gif, true)
        var size = 2
        while size < palette.count { size *= 2 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for i in 0..<palette.count {
            let c = palette.color(i)
            colors[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b)
        }
        let map = GifMakeMapObject(Int32(size), colors)
        defer { GifFreeMapObject(map) }
        #expect(EGifPutScreenDesc(gif, Int32(frame.width), Int32(frame.height), 8, 0, map) == GIF_OK)
        let control: [UInt8] = [UInt8(frame.disposal.code << 2), 0, 0, 0]
        #expect(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control) == GIF_OK)
        #expect(EGifPutImageDesc(gif, 0, 0, Int32(frame.width), Int32(frame.height), false, nil) == GIF_OK)
        var indices = frame.indices
        #expect(EGifPutLine(gif, &indices, Int32(indices.count)) == GIF_OK)
        #expect(EGifCloseFile(gif, &error) == GIF_OK)
    }

    static func palette(_ count: Int, seed: UInt64) -> Palette {
        var random = Random(state: seed | 1)
        return Palette(rgb: (0..<count * 3).map { _ in UInt8(random.below(256)) })
    }

    @Test func exactOutputIsGiflibsByteForByte() throws {
        let dir = Fixture.scratchDirectory()
        for codeSize in 1...8 {
            let colors = 1 << codeSize
            for (width, height) in [(1, 1), (80, 50), (300, 233)] {
                for (n, stream) in Self.streams(codeSize: codeSize, count: width * height, seed: UInt64(colors + width)).enumerated() {
                    let palette = Self.palette(colors, seed: UInt64(n + colors))
                    let frame = GIFFrame(width: width, height: height, indices: stream)
                    let ours = dir.appendingPathComponent("ours.gif"), theirs = dir.appendingPathComponent("giflib.gif")
                    let encoder = try GIFEncoder(url: ours, width: width, height: height, globalPalette: palette, loopCount: nil)
                    try encoder.add(frame)
                    try encoder.finish()
                    try Self.giflibGIF(frame, palette: palette, to: theirs)
                    #expect(try Data(contentsOf: ours) == Data(contentsOf: theirs), "\(colors) colours, \(width)x\(height), stream \(n)")
                    // And giflib reads ours back.
                    let reference = try GiflibReference(url: ours)
                    #expect(reference.images.count == 1)
                }
            }
        }
    }

    /// A smooth, noisy RGB picture and its indices into a palette of `colors` entries.
    static func picture(width: Int, height: Int, colors: Int, seed: UInt64) -> (image: RGBAImage, palette: Palette, indices: [UInt8]) {
        var random = Random(state: seed | 1)
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                image.pixels[o] = UInt8(clamping: x * 255 / width + random.below(24))
                image.pixels[o + 1] = UInt8(clamping: y * 255 / height + random.below(24))
                image.pixels[o + 2] = UInt8(clamping: (x + y) * 128 / (width + height) + random.below(24))
                image.pixels[o + 3] = 255
            }
        }
        let palette = Quantizer(maxColors: colors).palette(for: image, mask: nil)
        var ditherer = Ditherer(palette: palette, method: .floydSteinberg)
        let indices = ditherer.indices(for: image, rect: PixelRect(x: 0, y: 0, width: width, height: height), mask: nil, transparentIndex: nil)
        return (image, palette, indices)
    }

    static func distance(_ a: RGBAImage, _ ao: Int, _ b: (UInt8, UInt8, UInt8)) -> Int {
        let dr = Int(a.pixels[ao]) - Int(b.0), dg = Int(a.pixels[ao + 1]) - Int(b.1), db = Int(a.pixels[ao + 2]) - Int(b.2)
        return (3 * dr * dr + 4 * dg * dg + 2 * db * db) / 3  // weighted as the encoder bounds it
    }

    /// Lossy images decode (with giflib) to colours within each pixel's bound of the wanted ones,
    /// also where a transparent pixel may stand for what shows through, or be replaced by a colour.
    @Test func lossyStaysWithinItsBoundAndIsSmaller() throws {
        let dir = Fixture.scratchDirectory()
        let (width, height) = (160, 120)
        for level in [0, 20, 80, 200] {
            let first = Self.picture(width: width, height: height, colors: 64, seed: 7)
            // The second image: the same palette, a changed middle, the rest transparent (index 64).
            let second = Self.picture(width: width, height: height, colors: 64, seed: 8)
            var indices2 = second.indices
            let transparent = 64
            for y in 0..<height {
                for x in 0..<width where !(40..<120).contains(x) || !(30..<90).contains(y) { indices2[y * width + x] = UInt8(transparent) }
            }
            let table2 = second.palette.rgb + [0, 0, 0]
            let url = dir.appendingPathComponent("lossy\(level).gif")
            let encoder = try GIFEncoder(url: url, width: width, height: height, globalPalette: first.palette, loopCount: 0)
            encoder.lossy = level
            try encoder.add(GIFFrame(width: width, height: height, delay: 10, indices: first.indices))
            try encoder.add(GIFFrame(width: width, height: height, delay: 10, transparentIndex: transparent, localPalette: table2, indices: indices2))
            try encoder.finish()

            let reference = try GiflibReference(url: url)
            #expect(reference.images.count == 2 && reference.delays == [10, 10])
            // Each pixel's limit: twice the bound, scaled by the contrast around it (`ErrorAllowance`).
            let bound = LZWLossy.bound(forLevel: level)
            let canvas = (0..<width * height).flatMap { i in reference.canvases[0].pixels[i * 4..<i * 4 + 3] }
            func limits(_ indices: [UInt8], _ table: [UInt8], transparent: Int?) -> [Int] {
                table.withUnsafeBufferPointer { palette in
                    indices.withUnsafeBufferPointer { indices in
                        var canvas = canvas
                        return canvas.withUnsafeMutableBufferPointer { canvas in
                            var lossy = LZWLossy(palette: palette, bound: bound, transparentIndex: transparent)
                            lossy.imageWidth = width
                            lossy.canvasWidth = width
                            lossy.canvas = transparent == nil ? nil : canvas.baseAddress
                            return ErrorAllowance.factors(indices: indices, mask: 0xFF, lossy: lossy)
                                .map { 2 * bound * Int($0) / ErrorAllowance.one }
                        }
                    }
                }
            }
            let limits1 = limits(first.indices, first.palette.rgb, transparent: nil)
            let limits2 = limits(indices2, table2, transparent: transparent)
            var worst = 0  // the largest error, in thousandths of its pixel's limit
            for i in 0..<width * height {
                let c = first.palette.color(Int(first.indices[i]))
                worst = max(worst, Self.distance(reference.canvases[0], i * 4, (c.r, c.g, c.b)) * 1000 / max(limits1[i], 1))
            }
            for i in 0..<width * height {
                // The wanted colour: the second palette's, or what the first image left there.
                let want: (UInt8, UInt8, UInt8)
                if Int(indices2[i]) == transparent {
                    let p = reference.canvases[0].pixels
                    want = (p[i * 4], p[i * 4 + 1], p[i * 4 + 2])
                } else {
                    let c = second.palette.color(Int(indices2[i]))
                    want = (c.r, c.g, c.b)
                }
                worst = max(worst, Self.distance(reference.canvases[1], i * 4, want) * 1000 / max(limits2[i], 1))
            }
            #expect(worst <= 1000, "level \(level): an error \(worst)/1000 of its pixel's limit")
            // Our decoder reads the same pixels.
            let animation = try GIFAnimation(url: url)
            var n = 0
            while let frame = try animation.next() {
                #expect(frame.canvas.pixels == reference.canvases[n].pixels)
                n += 1
            }
            let size = try Data(contentsOf: url).count
            if level > 0 {
                let exact = try Data(contentsOf: dir.appendingPathComponent("lossy0.gif")).count
                #expect(size < exact, "level \(level): \(size) bytes, exact \(exact)")
            }
        }
    }

    /// The encoder searches its table for the string to write, not one pixel at a time: where
    /// the wanted index leads to a short string and a close colour to a long one, it takes the
    /// close colour (a greedy choice of the closest colour took the wanted index and stopped).
    @Test func lossyTakesANearMissThatLetsTheStringRunOn() throws {
        // 0-10 far apart but 1 and 2, 8 levels of green apart (weighted squared distance 85,
        // within the bound of 100 but too much to take for a pixel or two of length). Every pixel
        // here sits among strong edges, so its bound is three times the one given (`ErrorAllowance`).
        let colors: [(UInt8, UInt8, UInt8)] = [(200, 0, 0), (0, 100, 0), (0, 108, 0), (0, 0, 200), (200, 200, 0),
                                              (0, 200, 200), (200, 0, 200), (255, 255, 255), (100, 100, 100),
                                              (60, 0, 0), (0, 0, 60)]
        let rgb = colors.flatMap { [$0.0, $0.1, $0.2] } + [UInt8](repeating: 0, count: (16 - colors.count) * 3)
        let long: [UInt8] = [0, 1, 3, 4, 5, 6, 7, 8], short: [UInt8] = [0, 2, 9]
        // The table learns 0 2 before 9 only, then long strings from 0 1 3 ...; 10 (never seen
        // before) makes a string start where the test begins: 0 2 3 4 5 6 7 8.
        let wanted: [UInt8] = [2, 3, 4, 5, 6, 7, 8]
        let indices = Array([[UInt8]](repeating: short, count: 20).joined()) + Array([[UInt8]](repeating: long, count: 40).joined())
            + [10, 0] + wanted + [9, 9]
        let result = try rgb.withUnsafeBufferPointer { p in
            try Self.encode(indices, codeSize: 4, lossy: LZWLossy(palette: p, bound: 34, transparentIndex: nil))
        }
        let decoded = Self.decode(result.blocks, codeSize: 4, count: indices.count)
        let at = indices.count - wanted.count - 2
        #expect(Array(decoded[at...]) == [1, 3, 4, 5, 6, 7, 8, 9, 9], "wrote \(Array(decoded[at...]))")
        #expect(Array(decoded[..<(at - 1)]) == Array(indices[..<(at - 1)]), "the patterns themselves are exact")
    }

    /// Visual masking: on a flat area (two dark colours 6 levels apart, dithered) no pixel strays
    /// by more than half the bound, where a stray colour would be a speck; among busy texture the
    /// allowance is larger and used. A third dark colour is close enough to the flat ones for the
    /// unscaled bound (1,200 from one of them, within twice 800) but not for the halved one.
    @Test func lossyStraysLessOnFlatAreasThanAmongTexture() throws {
        let (width, height) = (96, 64)
        var colors: [(UInt8, UInt8, UInt8)] = [(40, 42, 46), (46, 48, 52), (60, 62, 66)]
        var random = Random(state: 11)
        while colors.count < 64 { colors.append((UInt8(random.below(256)), UInt8(random.below(256)), UInt8(random.below(256)))) }
        let rgb = colors.flatMap { [$0.0, $0.1, $0.2] }
        var indices = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                // Left half flat: a dither of colours 0 and 1 (mostly 0); the right half noise.
                indices[y * width + x] = x < width / 2 ? UInt8((x * 7 + y * 3) % 5 == 0 ? 1 : 0) : UInt8(3 + random.below(61))
            }
        }
        let bound = LZWLossy.bound(forLevel: 80)
        let result = try rgb.withUnsafeBufferPointer { p in
            try Self.encode(indices, codeSize: 6, lossy: { var l = LZWLossy(palette: p, bound: bound, transparentIndex: nil); l.imageWidth = width; return l }())
        }
        let decoded = Self.decode(result.blocks, codeSize: 6, count: indices.count)
        func error(_ i: Int) -> Int {
            let a = colors[Int(indices[i])], b = colors[Int(decoded[i])]
            let dr = Int(a.0) - Int(b.0), dg = Int(a.1) - Int(b.1), db = Int(a.2) - Int(b.2)
            return LZWEncoder.distance(dr, dg, db)
        }
        // Away from the seam between the halves (a pixel beside the texture is busy).
        let flat = (0..<height).flatMap { y in (0..<width / 2 - 1).map { y * width + $0 } }
        let busy = (0..<height).flatMap { y in (width / 2 + 1..<width).map { y * width + $0 } }
        let flatWorst = flat.map(error).max() ?? 0
        #expect(flatWorst <= bound, "a flat pixel strayed by \(flatWorst), over \(bound)")
        #expect(busy.map(error).max() ?? 0 > bound, "the texture's allowance goes unused")
        #expect(result.bytes.count < 4 * indices.count / 5, "\(result.bytes.count) bytes: lossy saved little")
    }

    @Test func lossyIsDeterministic() throws {
        let picture = Self.picture(width: 97, height: 61, colors: 200, seed: 3)
        var bytes: [[UInt8]] = []
        for _ in 0..<2 {
            let rgb = picture.palette.rgb
            let result = try rgb.withUnsafeBufferPointer { p in
                try Self.encode(picture.indices, codeSize: 8, lossy: LZWLossy(palette: p, bound: 800, transparentIndex: nil))
            }
            bytes.append(result.bytes)
        }
        #expect(bytes[0] == bytes[1])
    }
}
