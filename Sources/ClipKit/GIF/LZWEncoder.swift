// Encodes an image's palette indices as GIF LZW data, streamed out in sub-blocks; optionally lossy.

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
    // For the lossy search: each code's string minus its last pixel, and per code visited, its
    // length, carried error (RGB) and summed error; the walk's stack; the chosen string's pixels.
    private let prefix: UnsafeMutablePointer<UInt16>
    private let nodeLength: UnsafeMutablePointer<Int32>
    private let nodeError: UnsafeMutablePointer<Int32>
    private let nodeLoss: UnsafeMutablePointer<Int32>
    private let stack: UnsafeMutablePointer<UInt16>
    private let path: UnsafeMutablePointer<UInt8>

    /// How many pixels of length a string's summed squared error (carried error included) of
    /// `bound` costs in the search. Measured with bench/rd_eval.py on its four clips (720p, 1080p,
    /// screen, natural), BD-rate at equal SSIMULACRA2 against the greedy choice it replaced, over
    /// --quality 25-95: 0 (the longest string) -5/-6/-2/0%; 0.5 -11/-12/-5/-4%; 1 -12/-14/-7/-5%;
    /// 2 -13/-20/-8/-4%; 3 -13/-22/-6/-2%; 4 -11/-23/-3/+1%; 6 -8/-22/-3/+5%.
    static let lossWeight = 2
    /// How many strings one search branches from at most (after that it follows only the
    /// wanted pixels): a bound on the work per string written, where a table holds thousands
    /// of strings under one first pixel. On the bench clips no search reached it.
    static let maxVisits = 512

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
        prefix = .allocate(capacity: 4096)
        nodeLength = .allocate(capacity: 4096)
        nodeError = .allocate(capacity: 4096 * 3)
        nodeLoss = .allocate(capacity: 4096)
        stack = .allocate(capacity: 4096)
        path = .allocate(capacity: 4096)
    }

    deinit {
        hash.deallocate()
        firstChild.deallocate()
        nextSibling.deallocate()
        suffix.deallocate()
        prefix.deallocate()
        nodeLength.deallocate()
        nodeError.deallocate()
        nodeLoss.deallocate()
        stack.deallocate()
        path.deallocate()
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

    /// Lossy (or canvas-aware) encoding: at each string start, the best string of the table
    /// that the pixels from there may be written as (see `LZWLossy`).
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
        let imageWidth = max(1, lossy.imageWidth)

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
        // Canvas offset of the image's pixel `position`.
        @inline(__always) func offset(_ position: Int) -> Int {
            guard canvas != nil else { return 0 }
            let y = position / imageWidth, x = position - y * imageWidth
            return ((lossy.top + y) * canvasWidth + lossy.left + x) * 3
        }

        let n = indices.count
        var start = 0
        while start < n {
            let best = bestString(from: start, indices: indices, mask: mask, bound: bound, color: color, offset: offset)
            // Write it: what each of its pixels shows, and its code.
            let length = Int(nodeLength[best])
            var code = best
            for k in stride(from: length - 1, through: 0, by: -1) {
                path[k] = suffix[code]
                if k > 0 { code = Int(prefix[code]) }
            }
            for k in 0..<length {
                let i = Int(path[k])
                lossy.shown?[start + k] = path[k]
                if let canvas, i != transparent {
                    let o = offset(start + k)
                    if i < paletteCount {
                        canvas[o] = palette[i * 3]; canvas[o + 1] = palette[i * 3 + 1]; canvas[o + 2] = palette[i * 3 + 2]
                    } else {
                        canvas[o] = 0; canvas[o + 1] = 0; canvas[o + 2] = 0
                    }
                }
            }
            try output(best, emit)
            start += length
            guard start < n else { break }
            // The decoder defines the string just written plus the first pixel of the next.
            let next = Int(indices[start] & mask)
            if nextCode >= Self.maxCode {
                try restart(emit)
                for code in 0..<clearCode { suffix[code] = UInt8(code) }
            } else {
                insert(best << 8 | next, code: nextCode)
                suffix[nextCode] = UInt8(next)
                prefix[nextCode] = UInt16(best)
                nextSibling[nextCode] = firstChild[best]
                firstChild[best] = UInt16(nextCode)
                firstChild[nextCode] = Self.none
                nextCode += 1
            }
        }
    }

    /// The code of the best string to write from `start`: a depth-first walk of the table from
    /// the exact first pixel, through every child whose colour fits the pixel it would stand for
    /// (at most `maxVisits` strings extended), scored by length less the weighted error.
    @inline(__always)
    private func bestString(from start: Int, indices: UnsafeBufferPointer<UInt8>, mask: UInt8, bound: Int,
                            color: (Int, Int) -> (Int, Int, Int)?, offset: (Int) -> Int) -> Int {
        let n = indices.count
        let root = Int(indices[start] & mask)
        nodeLength[root] = 1
        nodeLoss[root] = 0
        nodeError[root * 3] = 0; nodeError[root * 3 + 1] = 0; nodeError[root * 3 + 2] = 0
        // Score times `bound`: length * bound - lossWeight * loss (integers, no rounding); at
        // bound 0 only colours that are the same fit, and the longest string wins.
        let unit = max(bound, 1)
        var best = root
        var bestScore = unit
        var depth = 1
        stack[0] = UInt16(root)
        var visits = 0
        while depth > 0 {
            depth -= 1
            let node = Int(stack[depth])
            let length = Int(nodeLength[node])
            if node != best {
                let score = length * unit - Self.lossWeight * Int(nodeLoss[node])
                if score > bestScore { best = node; bestScore = score }
            }
            let t = start + length
            guard t < n else { continue }
            let branches = visits < Self.maxVisits
            visits += 1
            let wanted = Int(indices[t] & mask)
            let o = offset(t)
            // Children go on the stack with the wanted pixel's last, so it is followed first:
            // with the visits spent, the exact string is the one that ran longest.
            @inline(__always) func push(_ code: Int, loss: Int32, _ er: Int, _ eg: Int, _ eb: Int) {
                nodeLength[code] = Int32(length + 1)
                nodeLoss[code] = loss
                nodeError[code * 3] = Int32(er); nodeError[code * 3 + 1] = Int32(eg); nodeError[code * 3 + 2] = Int32(eb)
                stack[depth] = UInt16(code)
                depth += 1
            }
            guard let want = color(wanted, o) else {
                // Transparent over an unknown canvas: only itself will do.
                if let code = lookup(node << 8 | wanted) { push(code, loss: nodeLoss[node], 0, 0, 0) }
                continue
            }
            let tr = want.0 + Int(nodeError[node * 3]), tg = want.1 + Int(nodeError[node * 3 + 1])
            let tb = want.2 + Int(nodeError[node * 3 + 2])
            var exact = -1
            var child = firstChild[node]
            while child != Self.none {
                let c = Int(child)
                let s = Int(suffix[c])
                child = nextSibling[c]
                if s == wanted { exact = c; continue }
                guard branches, let have = color(s, o) else { continue }
                let dr = tr - have.0, dg = tg - have.1, db = tb - have.2
                let d = dr * dr + dg * dg + db * db
                let rr = want.0 - have.0, rg = want.1 - have.1, rb = want.2 - have.2
                guard d <= bound && rr * rr + rg * rg + rb * rb <= 2 * bound else { continue }
                push(c, loss: nodeLoss[node] &+ Int32(clamping: d), (tr - have.0) * 3 / 4, (tg - have.1) * 3 / 4, (tb - have.2) * 3 / 4)
            }
            if exact >= 0 {
                let er = tr - want.0, eg = tg - want.1, eb = tb - want.2
                push(exact, loss: nodeLoss[node] &+ Int32(clamping: er * er + eg * eg + eb * eb), er * 3 / 4, eg * 3 / 4, eb * 3 / 4)
            }
        }
        return best
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
