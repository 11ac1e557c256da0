// Decodes GIF LZW data fed one sub-block at a time straight into an image's index buffer.

/// A GIF LZW decoder that keeps its state between sub-blocks, so image data is never gathered
/// in memory before decoding. One instance is reused for every image of a file; its tables are
/// one allocation owned here and freed in `deinit`.
final class LZWDecoder {
    enum State: Equatable {
        /// More data is welcome.
        case decoding
        /// The end code was read.
        case ended
        /// A code that cannot occur in valid data was read; decoding stopped there.
        case invalid
    }

    private static let maxCodes = 4096

    private(set) var state = State.decoding
    /// Indices written so far (stored order).
    private(set) var position = 0
    /// Codes that would have produced pixels beyond the image (the excess is dropped).
    private(set) var producedExcess = false
    /// Whole bytes that arrived after the end code.
    private(set) var bytesAfterEnd = 0
    /// The index `reset` was told to watch for (-1: none), and whether a string produced so far
    /// holds it (a string cut at the image's end counts whole).
    private var watched = -1
    private(set) var sawWatched = false

    private var clearCode = 0
    private var codeSize = 0
    private var nextCode = 0
    private var previous = -1
    private var bits: UInt64 = 0
    private var bitCount = 0

    // Entry `c` is the string prefix(c) + suffix[c]; `first` and `lengths` avoid walking chains.
    private let storage: UnsafeMutableRawPointer
    private let prefix: UnsafeMutablePointer<UInt16>
    private let lengths: UnsafeMutablePointer<UInt16>
    private let suffix: UnsafeMutablePointer<UInt8>
    private let first: UnsafeMutablePointer<UInt8>
    /// Whether entry `c`'s string holds the watched index (1) or not (0).
    private let holds: UnsafeMutablePointer<UInt8>
    /// Where a string that overflows the image is spelled out before its fitting part is copied.
    private let scratch: UnsafeMutablePointer<UInt8>

    init() {
        let n = Self.maxCodes
        storage = UnsafeMutableRawPointer.allocate(byteCount: n * 2 + n * 2 + n * 4, alignment: 8)
        prefix = storage.bindMemory(to: UInt16.self, capacity: n)
        lengths = (storage + n * 2).bindMemory(to: UInt16.self, capacity: n)
        suffix = (storage + n * 4).bindMemory(to: UInt8.self, capacity: n)
        first = (storage + n * 5).bindMemory(to: UInt8.self, capacity: n)
        scratch = (storage + n * 6).bindMemory(to: UInt8.self, capacity: n)
        holds = (storage + n * 7).bindMemory(to: UInt8.self, capacity: n)
    }

    deinit { storage.deallocate() }

    /// Prepares for a new image whose data starts with `minimumCodeSize` (1...11, checked by the
    /// caller). Sizes 9 to 11 are outside GIF89a but written by some encoders and read by
    /// browsers, Pillow, ffmpeg and gifsicle: their literals above 255 keep their low byte.
    /// `watching`: an index whose use `sawWatched` reports (the transparent one).
    func reset(minimumCodeSize: Int, watching index: Int? = nil) {
        clearCode = 1 << minimumCodeSize
        watched = index ?? -1
        sawWatched = false
        // The literals: an earlier image with a smaller code size may have used these slots.
        for code in 0..<clearCode {
            prefix[code] = 0
            lengths[code] = 1
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
            holds[code] = Int(suffix[code]) == watched ? 1 : 0
        }
        codeSize = minimumCodeSize + 1
        nextCode = clearCode + 2
        previous = -1
        bits = 0
        bitCount = 0
        state = .decoding
        position = 0
        producedExcess = false
        bytesAfterEnd = 0
    }

    /// Decodes `input` (one sub-block's bytes) into `output`, continuing where the last call stopped.
    func decode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) {
        run(input, into: output.baseAddress, total: output.count)
    }

    /// Reads `input` as `decode` does without writing pixels: `position` then says how many of
    /// an image's `total` pixels its data provides, at a fraction of the cost of decoding.
    func count(_ input: UnsafeBufferPointer<UInt8>, total: Int) {
        run(input, into: nil, total: total)
    }

    private func run(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>?, total: Int) {
        guard state == .decoding else {
            if state == .ended { bytesAfterEnd += input.count }
            return
        }
        let clearCode = self.clearCode
        let endCode = clearCode + 1
        var codeSize = self.codeSize, nextCode = self.nextCode, previous = self.previous
        var bits = self.bits, bitCount = self.bitCount, position = self.position
        var mask = (1 << codeSize) - 1
        var i = 0
        defer {
            self.codeSize = codeSize
            self.nextCode = nextCode
            self.previous = previous
            self.bits = bits
            self.bitCount = bitCount
            self.position = position
        }
        while true {
            while bitCount < codeSize {
                guard i < input.count else { return }
                bits |= UInt64(input[i]) << UInt64(bitCount)
                bitCount += 8
                i += 1
            }
            let code = Int(bits) & mask
            bits >>= UInt64(codeSize)
            bitCount -= codeSize

            if code == clearCode {
                codeSize = Int(clearCode.trailingZeroBitCount) + 1
                mask = (1 << codeSize) - 1
                nextCode = clearCode + 2
                previous = -1
                continue
            }
            if code == endCode {
                state = .ended
                bytesAfterEnd = input.count - i
                return
            }
            // A code is valid if it is in the table, or is the one about to be added (the
            // KwKwK case), which needs a previous string to build from.
            if code < nextCode {
                if previous >= 0 && nextCode < Self.maxCodes {
                    add(nextCode, prefix: previous, last: first[code])
                    nextCode += 1
                }
            } else if code == nextCode && previous >= 0 && nextCode < Self.maxCodes {
                add(nextCode, prefix: previous, last: first[previous])
                nextCode += 1
            } else {
                state = .invalid
                return
            }
            previous = code
            if nextCode == 1 << codeSize && codeSize < 12 {
                codeSize += 1
                mask = (1 << codeSize) - 1
            }

            let length = Int(lengths[code])
            let room = total - position
            if holds[code] != 0 && room > 0 { sawWatched = true }
            if length <= room {
                if let out {
                    var c = code
                    var p = position + length - 1
                    while p > position {
                        out[p] = suffix[c]
                        c = Int(prefix[c])
                        p -= 1
                    }
                    out[position] = suffix[c]
                }
                position += length
            } else {
                producedExcess = true
                if room > 0 {
                    if let out {
                        spell(code, length: length)
                        (out + position).update(from: scratch, count: room)
                    }
                    position = total
                }
            }
        }
    }

    @inline(__always)
    private func add(_ code: Int, prefix previous: Int, last: UInt8) {
        prefix[code] = UInt16(previous)
        suffix[code] = last
        first[code] = first[previous]
        lengths[code] = lengths[previous] &+ 1
        holds[code] = holds[previous] | (Int(last) == watched ? 1 : 0)
    }

    /// Writes the string of `code` into `scratch`.
    private func spell(_ code: Int, length: Int) {
        var c = code
        var p = length - 1
        while p > 0 {
            scratch[p] = suffix[c]
            c = Int(prefix[c])
            p -= 1
        }
        scratch[0] = suffix[c]
    }
}
