// Lossy LZW's colour error, spread over the pixels still to be written as Floyd-Steinberg does.

/// The error lossy LZW leaves on the pixels it writes (the colour written against the colour
/// wanted plus the error it inherits), passed on as Floyd-Steinberg error diffusion passes it:
/// `carriedShare` sixteenths to the next pixel of the row, the rest to the three pixels below
/// (3:5:1, down-left, down, down-right). The search for the next string aims at each pixel's
/// wanted colour plus what reached it, so the colours it picks instead of the wanted ones even
/// out over an area instead of each leaving its error where it falls (a run of near misses one
/// way made a lighter or darker streak). Error is kept to `largestError` per channel.
///
/// Measured with bench/rd_eval.py at `--quality` 50/75/90 (bytes against the curve before, at
/// equal SSIMULACRA2): 720p -3.5 to -6.5%, 1080p -8 to -10%, screen -4 to -5%, natural 0 to
/// -1.4%. Before, three quarters of a pixel's error went to the next pixel of its string and
/// the rest was lost, as was all of it at the string's end. Carried shares of 6 to 9 sixteenths
/// were within about a point of each other on the four clips; on the natural clip 10 and 11
/// did as well, 13 and 14 wrote 0.5-4% more than before; a `largestError` of 32 to 255 moved
/// nothing by more than 1%.
struct LossyDiffusion: ~Copyable {
    /// (`spread` relies on it: the 9 sixteenths not carried make its ninths sixteenths.)
    static let carriedShare = 7
    static let largestError = 96

    let width: Int
    /// Two rows of RGB error (`width` + 2 pixels each: one either side for the edges): the row
    /// being written, and the one below it.
    private let rows: UnsafeMutableBufferPointer<Int32>
    /// Where the row being written, and the one below, start in `rows`.
    private var current = 0
    private var below: Int
    /// The position of the first pixel of the row being written (the image's pixels in rows of `width`).
    private var rowStart = 0
    /// Error carried to the next pixel of the row.
    private var carried = (0, 0, 0)

    /// Whether error is diffused; inactive, none is (a search that allows no error).
    let isActive: Bool

    init(width: Int, isActive: Bool = true) {
        self.isActive = isActive
        self.width = max(1, width)
        below = (self.width + 2) * 3
        rows = .allocate(capacity: 2 * below)
        rows.initialize(repeating: 0)
    }

    deinit { rows.deallocate() }

    /// The error diffused from above onto the pixels from `position` on (at or after the pixel
    /// being written), for a search that reads it pixel by pixel.
    @inline(__always)
    func above(from position: Int) -> DiffusedRows {
        // Inactive: past both rows, where none is read.
        DiffusedRows(rows: UnsafePointer(rows.baseAddress!), current: current, below: below,
                     x: isActive ? position - rowStart : 2 * width, width: width)
    }

    /// The error diffused from above onto the pixel at `position` (at or after the pixel being
    /// written); on the row below, what reached it so far; past it, none.
    @inline(__always)
    func fromAbove(_ position: Int) -> (Int, Int, Int) {
        above(from: position)[0]
    }

    /// What the pixel at `position` (the next to be written) inherits: the error carried along
    /// its row and diffused from above.
    @inline(__always)
    func inherited(_ position: Int) -> (Int, Int, Int) {
        let above = fromAbove(position)
        guard position - rowStart < width else { return above }
        return (carried.0 + above.0, carried.1 + above.1, carried.2 + above.2)
    }

    /// Moves on to the pixel at `position` (positions in order, each once): at a new row, the row
    /// below becomes the one written and nothing is carried.
    @inline(__always)
    mutating func enter(_ position: Int) {
        while position - rowStart >= width {
            // The row just written, cleared, becomes the one below.
            for i in current..<current + (width + 2) * 3 { rows[i] = 0 }
            swap(&current, &below)
            rowStart += width
            carried = (0, 0, 0)
        }
    }

    /// Spreads `error` (RGB: what the pixel at `position` wanted, with what it inherited, less the
    /// colour written) over the pixels after it; nil when what it shows is unknown (nothing passes).
    @inline(__always)
    mutating func spread(_ error: (Int, Int, Int)?, at position: Int) {
        guard let error, error.0 | error.1 | error.2 != 0 else {
            // (Unknown: nothing passes. Zero: every share would be 0, nothing to add.)
            carried = (0, 0, 0)
            return
        }
        let limit = Self.largestError
        let r = min(max(error.0, -limit), limit), g = min(max(error.1, -limit), limit), b = min(max(error.2, -limit), limit)
        // Wrapping arithmetic, truncating conversions: each share is at most `largestError` (96)
        // in size, and a pixel of the row below takes three (at most 3 * 96 in all, the row is
        // cleared before it is used again). Checked, these nine updates were about half of the
        // instructions of the write loop.
        let share = Self.carriedShare
        carried = (r &* share / 16, g &* share / 16, b &* share / 16)
        // Down-left 3, down 5, down-right 1, of the ninths not carried: with 9 sixteenths
        // not carried, e * 9 * ninths / 144 is e * ninths / 16 (rounded toward zero, as
        // Swift's division rounds), the eight first in one vector.
        let p = rows.baseAddress! + below + (position - rowStart) * 3
        let r32 = Int32(truncatingIfNeeded: r), g32 = Int32(truncatingIfNeeded: g), b32 = Int32(truncatingIfNeeded: b)
        // (Down-left, down and down-right per channel; the last, blue down-right, is 1.)
        let shares = SIMD8<Int32>(r32, g32, b32, r32, g32, b32, r32, g32) &* SIMD8<Int32>(3, 3, 3, 5, 5, 5, 1, 1)
        let raw = UnsafeMutableRawPointer(p)
        raw.storeBytes(of: raw.loadUnaligned(as: SIMD8<Int32>.self) &+ Self.sixteenths(shares), as: SIMD8<Int32>.self)
        p[8] &+= b32 / 16
    }

    /// `x / 16` lane by lane, rounded toward zero as Swift's division rounds (a negative
    /// value is raised by 15 before the arithmetic shift).
    @inline(__always)
    private static func sixteenths(_ x: SIMD8<Int32>) -> SIMD8<Int32> {
        (x &+ ((x &>> 31) & 15)) &>> 4
    }
}

/// A view of `LossyDiffusion`'s rows from one pixel on, valid until the diffusion moves on.
struct DiffusedRows {
    let rows: UnsafePointer<Int32>
    let current: Int
    let below: Int
    /// The first pixel's column on the row being written (past `width`: on the row below).
    let x: Int
    let width: Int

    /// The error diffused from above onto the pixel `k` on from the first.
    @inline(__always)
    subscript(k: Int) -> (Int, Int, Int) {
        var x = x + k, base = current
        if x >= width {
            x -= width
            base = below
            guard x < width else { return (0, 0, 0) }
        }
        let i = base + (x + 1) * 3
        return (Int(rows[i]), Int(rows[i + 1]), Int(rows[i + 2]))
    }
}
