// Encodes an image's palette indices as GIF LZW data, streamed out in sub-blocks; optionally lossy
// (the search for the string to write is in LZWEncoder+Lossy.swift, which shares the table).

/// A GIF LZW encoder: the output is byte for byte giflib's (`EGifPutLine` of the whole image)
/// when no loss is allowed. Memory is its code table and one sub-block, whatever the image size.
final class LZWEncoder {
    static let maxCode = 4095  // giflib's LZ_MAX_CODE: codes 0...4094 are assigned
    private static let hashSize = 8192
    private static let empty = UInt32.max

    // (prefix code << 8 | pixel) << 12 | code, in an open-addressed table.
    private let hash: UnsafeMutablePointer<UInt32>
    // The table and search state below are internal, not private: LZWEncoder+Lossy.swift uses them.
    // For the lossy search: each code's children as a list, and its last pixel.
    let firstChild: UnsafeMutablePointer<UInt16>
    let nextSibling: UnsafeMutablePointer<UInt16>
    let suffix: UnsafeMutablePointer<UInt8>
    static let none = UInt16.max
    // For the lossy search: each code's string minus its last pixel; the walk's stack of strings
    // waiting (a code is pushed at most once a search: at most 4096); the chosen string's pixels.
    let prefix: UnsafeMutablePointer<UInt16>
    let waiting: UnsafeMutablePointer<Waiting>
    let path: UnsafeMutablePointer<UInt8>
    /// `ErrorAllowance.multipliers`, held here: the search reads one for every pixel it visits.
    let multipliers: UnsafeMutablePointer<UInt64>
    /// For the lossy search: the RGB of each of the 256 indices, 4 entries apart (black past the
    /// palette, as the viewer shows it), filled per image; the transparent index's entry is
    /// what shows through at the pixel being looked at, written before each use.
    let colors: UnsafeMutablePointer<Int32>

    /// How many pixels of length a string's summed squared error (carried error included) of
    /// `bound` costs in the search. Measured with bench/rd_eval.py on its four clips (720p, 1080p,
    /// screen, natural), BD-rate at equal SSIMULACRA2 against the greedy choice it replaced, over
    /// --quality 25-95: 0 (the longest string) -5/-6/-2/0%; 0.5 -11/-12/-5/-4%; 1 -12/-14/-7/-5%;
    /// 2 -13/-20/-8/-4%; 3 -13/-22/-6/-2%; 4 -11/-23/-3/+1%; 6 -8/-22/-3/+5%.
    static let lossWeight = 2
    /// How many strings one search branches from at most (after that it follows only the
    /// wanted pixels): a bound on the work per string written, where a table holds thousands
    /// of strings under one first pixel. (On the 720p and screen bench clips at --quality 25 and
    /// 75 it wrote the same bytes as no bound; 64 wrote 0.5-6% more.)
    static let maxVisits = 512

    /// A string waiting on the lossy search's stack: its code, length, summed error and the
    /// error (RGB) it carries to its next pixel, side by side: a push or a pop reads or writes one
    /// place (it was four arrays indexed by code).
    struct Waiting {
        var code: Int32
        var length: Int32
        var loss: Int32
        var error: (Int32, Int32, Int32)
    }

    // One sub-block: a length byte and up to 255 data bytes.
    private var block = [UInt8](repeating: 0, count: 256)
    private var blockCount = 0
    private var bits: UInt64 = 0
    private var bitCount = 0
    private var codeBits = 0
    var nextCode = 0
    var clearCode = 0

    init() {
        hash = .allocate(capacity: Self.hashSize)
        firstChild = .allocate(capacity: 4096)
        nextSibling = .allocate(capacity: 4096)
        suffix = .allocate(capacity: 4096)
        prefix = .allocate(capacity: 4096)
        waiting = .allocate(capacity: 4096)
        path = .allocate(capacity: 4096)
        multipliers = .allocate(capacity: ErrorAllowance.multipliers.count)
        multipliers.initialize(from: ErrorAllowance.multipliers, count: ErrorAllowance.multipliers.count)
        colors = .allocate(capacity: 256 * 4)
        colors.initialize(repeating: 0, count: 256 * 4)
    }

    deinit {
        hash.deallocate()
        firstChild.deallocate()
        nextSibling.deallocate()
        suffix.deallocate()
        prefix.deallocate()
        waiting.deallocate()
        path.deallocate()
        multipliers.deallocate()
        colors.deallocate()
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

    /// The table is full: a clear code, and an empty table.
    func restart(_ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try output(clearCode, emit)
        start(clearCode.trailingZeroBitCount)
    }

    @inline(__always)
    private func slot(_ key: Int) -> Int {
        (key &* 0x9E37_79B1) >> 7 & (Self.hashSize - 1)
    }

    @inline(__always)
    func lookup(_ key: Int) -> Int? {
        var s = slot(key)
        while true {
            let entry = hash[s]
            if entry == Self.empty { return nil }
            if Int(entry >> 12) == key { return Int(entry & 0xFFF) }
            s = (s + 1) & (Self.hashSize - 1)
        }
    }

    @inline(__always)
    func insert(_ key: Int, code: Int) {
        var s = slot(key)
        while hash[s] != Self.empty { s = (s + 1) & (Self.hashSize - 1) }
        hash[s] = UInt32(key << 12 | code)
    }

    /// Appends `code` at the current width; widens the codes as giflib does (after writing a
    /// code, once the next code to assign needs another bit).
    @inline(__always)
    func output(_ code: Int, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
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
