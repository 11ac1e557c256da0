// Encodes an image's palette indices as GIF LZW data, streamed out in sub-blocks; optionally lossy.

/// What a lossy encoding may trade: the colours behind the indices and how far a pixel may stray.
///
/// While a string grows, the next pixel may take the index the table offers instead of the
/// wanted one when the two colours are close: within `bound` (squared RGB distance) of the
/// wanted colour plus the carried error, and within `2 * bound` of the wanted colour alone,
/// which bounds every pixel's error. The error of each such choice is carried
/// (three quarters of it) to the next pixel of the string, so a run of near misses cannot drift
/// one way; every new string starts with the exact wanted pixel and no carried error.
struct LZWLossy {
    /// RGB triples of the colour table in effect (at least as many entries as the indices use).
    var palette: UnsafeBufferPointer<UInt8>
    /// Largest squared RGB distance accepted (with the carried error); 0 writes exact data.
    var bound: Int
    var transparentIndex: Int?
    /// What the viewer sees under the image before it is drawn, RGB per screen pixel, updated to
    /// what this image shows; nil when unknown (then transparent only ever stands for itself).
    /// With it, a transparent pixel may become a colour close to what it shows, and a pixel may
    /// become transparent where what shows through is close to its colour.
    var canvas: UnsafeMutablePointer<UInt8>?
    var canvasWidth = 0
    /// Where the image sits on the canvas, and its width.
    var left = 0
    var top = 0
    var imageWidth = 1
    /// Where to record the index each pixel was written as (one per index), for a caller that
    /// follows what the viewer sees; nil records nothing.
    var shown: UnsafeMutablePointer<UInt8>?

    /// The squared-distance bound for `--lossy N`.
    static func bound(forLevel level: Int) -> Int { level * 10 }
}

/// A GIF LZW encoder: the output is byte for byte giflib's (`EGifPutLine` of the whole image)
/// when no loss is allowed. Memory is its code table and one sub-block, whatever the image size.
final class LZWEncoder {
    private static let maxCode = 4095  // giflib's LZ_MAX_CODE: codes 0...4094 are assigned
    private static let hashSize = 8192
    private static let empty = UInt32.max

    // (prefix code << 8 | pixel) << 12 | code, in an open-addressed table.
    private let hash: UnsafeMutablePointer<UInt32>
    // For the lossy search: each code's children as a list, and its last pixel.
    private let firstChild: UnsafeMutablePointer<UInt16>
    private let nextSibling: UnsafeMutablePointer<UInt16>
    private let suffix: UnsafeMutablePointer<UInt8>
    private static let none = UInt16.max

    // One sub-block: a length byte and up to 255 data bytes.
    private var block = [UInt8](repeating: 0, count: 256)
    private var blockCount = 0
    private var bits: UInt64 = 0
    private var bitCount = 0
    private var codeBits = 0
    private var nextCode = 0
    private var clearCode = 0

    init() {
        hash = .allocate(capacity: Self.hashSize)
        firstChild = .allocate(capacity: 4096)
        nextSibling = .allocate(capacity: 4096)
        suffix = .allocate(capacity: 4096)
    }

    deinit {
        hash.deallocate()
        firstChild.deallocate()
        nextSibling.deallocate()
        suffix.deallocate()
    }

    /// The minimum code size giflib writes for a colour table of `tableSize` entries (a power of two).
    static func minimumCodeSize(tableSize: Int) -> Int {
        var bits = 1
        while 1 << bits < tableSize { bits += 1 }
        return max(2, bits)
    }

    /// Encodes `indices` (masked to `minimumCodeSize` bits, as giflib does) and hands out the
    /// bytes in order: the code size byte, each full sub-block as it fills, the last one and
    /// the terminator. `lossy` nil (or bound 0 without a canvas) writes exact data.
    func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, lossy: LZWLossy? = nil,
                emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition((2...8).contains(minimumCodeSize))
        var sizeByte = UInt8(minimumCodeSize)
        try withUnsafeBytes(of: &sizeByte) { try emit($0) }
        clearCode = 1 << minimumCodeSize
        blockCount = 0
        bits = 0
        bitCount = 0
        start(minimumCodeSize)
        try output(clearCode, emit)
        if let lossy, lossy.bound > 0 || lossy.canvas != nil, !indices.isEmpty {
            try encodeLossy(indices, minimumCodeSize: minimumCodeSize, lossy: lossy, emit: emit)
        } else if !indices.isEmpty {
            try encodeExact(indices, mask: UInt8(truncatingIfNeeded: clearCode - 1), emit: emit)
        }
        try output(clearCode + 1, emit)
        while bitCount > 0 {
            try put(UInt8(truncatingIfNeeded: bits), emit)
            bits >>= 8
            bitCount = max(0, bitCount - 8)
        }
        if blockCount > 0 { try flushBlock(emit) }
        var terminator = UInt8(0)
        try withUnsafeBytes(of: &terminator) { try emit($0) }
    }

    /// Empties the table.
    private func start(_ minimumCodeSize: Int) {
        codeBits = minimumCodeSize + 1
        nextCode = clearCode + 2
        hash.update(repeating: Self.empty, count: Self.hashSize)
        firstChild.update(repeating: Self.none, count: 4096)
    }

    private func encodeExact(_ indices: UnsafeBufferPointer<UInt8>, mask: UInt8,
                             emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var current = Int(indices[0] & mask)
        var i = 1
        let n = indices.count
        while i < n {
            let pixel = Int(indices[i] & mask)
            i += 1
            let key = current << 8 | pixel
            if let code = lookup(key) {
                current = code
                continue
            }
            try output(current, emit)
            current = pixel
            if nextCode >= Self.maxCode {
                try restart(emit)
            } else {
                insert(key, code: nextCode)
                nextCode += 1
            }
        }
        try output(current, emit)
    }

    private func encodeLossy(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, lossy: LZWLossy,
                             emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        for code in 0..<clearCode { suffix[code] = UInt8(code) }
        let mask = UInt8(truncatingIfNeeded: clearCode - 1)
        let palette = lossy.palette
        let paletteCount = palette.count / 3
        let transparent = lossy.transparentIndex ?? -1
        let bound = lossy.bound
        let canvas = lossy.canvas
        let canvasWidth = lossy.canvasWidth

        // The colour index `i` shows at canvas offset `o` (RGB of the palette, or what shows
        // through a transparent pixel); nil when it cannot be known.
        @inline(__always) func color(_ i: Int, _ o: Int) -> (Int, Int, Int)? {
            if i == transparent {
                guard let canvas else { return nil }
                return (Int(canvas[o]), Int(canvas[o + 1]), Int(canvas[o + 2]))
            }
            guard i < paletteCount else { return (0, 0, 0) }
            return (Int(palette[i * 3]), Int(palette[i * 3 + 1]), Int(palette[i * 3 + 2]))
        }
        @inline(__always) func paint(_ i: Int, _ o: Int) {
            guard let canvas, i != transparent else { return }
            if i < paletteCount {
                canvas[o] = palette[i * 3]; canvas[o + 1] = palette[i * 3 + 1]; canvas[o + 2] = palette[i * 3 + 2]
            } else {
                canvas[o] = 0; canvas[o + 1] = 0; canvas[o + 2] = 0
            }
        }

        let imageWidth = max(1, lossy.imageWidth)
        var x = 0, y = 0
        // Canvas offset of the pixel at (x, y) of the image.
        @inline(__always) func offset() -> Int { canvas == nil ? 0 : ((lossy.top + y) * canvasWidth + lossy.left + x) * 3 }
        @inline(__always) func advance() {
            x += 1
            if x == imageWidth { x = 0; y += 1 }
        }

        let shown = lossy.shown
        var current = Int(indices[0] & mask)
        paint(current, offset())
        shown?[0] = UInt8(truncatingIfNeeded: current)
        advance()
        var er = 0, eg = 0, eb = 0  // error carried along the current string
        let n = indices.count
        var i = 1
        while i < n {
            let wanted = Int(indices[i] & mask)
            let o = offset()
            var best = -1
            var bestDiff = Int.max
            var bestColor = (0, 0, 0)
            if er | eg | eb == 0, color(wanted, o) != nil, let exact = lookup(current << 8 | wanted) {
                // No carried error: the exact pixel has distance 0 and wins every tie, so it is
                // what the search below would choose (most pixels of flat areas end here).
                best = exact
            } else if let want = color(wanted, o) {
                let tr = want.0 + er, tg = want.1 + eg, tb = want.2 + eb
                var child = firstChild[current]
                while child != Self.none {
                    let c = Int(child)
                    let s = Int(suffix[c])
                    if let have = color(s, o) {
                        let dr = tr - have.0, dg = tg - have.1, db = tb - have.2
                        let d = dr * dr + dg * dg + db * db
                        let rr = want.0 - have.0, rg = want.1 - have.1, rb = want.2 - have.2
                        let fits = s == wanted || (d <= bound && rr * rr + rg * rg + rb * rb <= 2 * bound)
                        if fits && (d < bestDiff || (d == bestDiff && s == wanted)) {
                            best = c
                            bestDiff = d
                            bestColor = have
                        }
                    }
                    child = nextSibling[c]
                }
                if best >= 0 {
                    er = (tr - bestColor.0) * 3 / 4
                    eg = (tg - bestColor.1) * 3 / 4
                    eb = (tb - bestColor.2) * 3 / 4
                }
            } else if let code = lookup(current << 8 | wanted) {
                best = code  // transparent over an unknown canvas: only itself will do
            }
            if best >= 0 {
                current = best
                paint(Int(suffix[best]), o)
                shown?[i] = suffix[best]
                advance()
                i += 1
                continue
            }
            try output(current, emit)
            let key = current << 8 | wanted
            if nextCode >= Self.maxCode {
                try restart(emit)
                for code in 0..<clearCode { suffix[code] = UInt8(code) }
            } else {
                insert(key, code: nextCode)
                suffix[nextCode] = UInt8(wanted)
                nextSibling[nextCode] = firstChild[current]
                firstChild[current] = UInt16(nextCode)
                firstChild[nextCode] = Self.none
                nextCode += 1
            }
            current = wanted
            er = 0; eg = 0; eb = 0
            paint(wanted, o)
            shown?[i] = UInt8(truncatingIfNeeded: wanted)
            advance()
            i += 1
        }
        try output(current, emit)
    }

    /// The table is full: a clear code, and an empty table.
    private func restart(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try output(clearCode, emit)
        start(clearCode.trailingZeroBitCount)
    }

    @inline(__always)
    private func slot(_ key: Int) -> Int {
        (key &* 0x9E37_79B1) >> 7 & (Self.hashSize - 1)
    }

    @inline(__always)
    private func lookup(_ key: Int) -> Int? {
        var s = slot(key)
        while true {
            let entry = hash[s]
            if entry == Self.empty { return nil }
            if Int(entry >> 12) == key { return Int(entry & 0xFFF) }
            s = (s + 1) & (Self.hashSize - 1)
        }
    }

    @inline(__always)
    private func insert(_ key: Int, code: Int) {
        var s = slot(key)
        while hash[s] != Self.empty { s = (s + 1) & (Self.hashSize - 1) }
        hash[s] = UInt32(key << 12 | code)
    }

    /// Appends `code` at the current width; widens the codes as giflib does (after writing a
    /// code, once the next code to assign needs another bit).
    @inline(__always)
    private func output(_ code: Int, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        bits |= UInt64(code) << UInt64(bitCount)
        bitCount += codeBits
        while bitCount >= 8 {
            try put(UInt8(truncatingIfNeeded: bits), emit)
            bits >>= 8
            bitCount -= 8
        }
        if nextCode >= 1 << codeBits && codeBits < 12 { codeBits += 1 }
    }

    @inline(__always)
    private func put(_ byte: UInt8, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        blockCount += 1
        block[blockCount] = byte
        if blockCount == 255 { try flushBlock(emit) }
    }

    private func flushBlock(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        block[0] = UInt8(blockCount)
        let count = blockCount + 1
        blockCount = 0
        try block.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
