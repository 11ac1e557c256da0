// Error diffusion's kernels, tabulated: what a pixel passes to each neighbour, for every error.

/// What error diffusion adds to a pixel's neighbours, in 1/16ths of a level, for every error a
/// channel can have (-255...255): the `damped` error split by the kernel, so the hot loop does
/// one lookup per channel in place of the damping and a division per neighbour.
struct DiffusionTaps {
    /// Four taps per error, error -255 first: ahead, below-behind, below, below-ahead.
    let table: [Int32]

    /// Floyd-Steinberg: 7/16 ahead, 3/16 below-behind, 5/16 below, 1/16 below-ahead.
    static let floydSteinberg = DiffusionTaps { e in (e &* 7 / 16, e &* 3 / 16, e &* 5 / 16, e / 16) }
    /// Sierra Lite: 2/4 ahead, 1/4 below-behind, 1/4 below (nothing below-ahead).
    static let sierraLite = DiffusionTaps { e in (e &* 2 / 4, e / 4, e / 4, 0) }

    private init(_ split: (Int32) -> (Int32, Int32, Int32, Int32)) {
        var table: [Int32] = []
        table.reserveCapacity(511 * 4)
        for error in -255...255 {
            let taps = split(damped(error))
            table += [taps.0, taps.1, taps.2, taps.3]
        }
        self.table = table
    }

    /// Where the taps of channel error `error` (-255...255) start in `table`.
    @inline(__always) static func offset(ofError error: Int) -> Int { (error &+ 255) &* 4 }
}

/// The error passed on, in 1/16ths: errors of a few levels are dropped (the palette is already
/// close; diffusing them only sprinkles noise over flat areas, which costs bytes and crawls from
/// frame to frame), the rest is damped to 3/4 and capped. Measured on a 720p test clip: smaller
/// GIFs and a higher SSIM than full-strength diffusion.
private func damped(_ error: Int) -> Int32 {
    if error >= -4 && error <= 4 { return 0 }
    let v = error * 12
    return Int32(v < -512 ? -512 : (v > 512 ? 512 : v))
}
