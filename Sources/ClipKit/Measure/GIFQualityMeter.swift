// Follows what a GIF viewer shows while the GIF is written, and scores it against the source.

/// Measures a GIF as it is written: the luma a viewer shows after each image (disposals and
/// transparency applied, lossy compression included, since it draws the indices as written),
/// compared by SSIM with the source frame each output tick stands for. The figure is the mean
/// over ticks, so a frame held for several ticks counts for each; a measurement of the file
/// with FFmpeg (bench/quality.py: the source frame on screen at each tick, scaled to the GIF's
/// size) gives the same figure within a few thousandths.
struct GIFQualityMeter {
    private var screen: LumaPlane
    /// The last image's rectangle when its disposal clears it before the next is drawn.
    private var clearBeforeNext: PixelRect?
    private var total = 0.0
    private(set) var ticks = 0
    /// The lowest SSIM of one tick.
    private(set) var lowest = 1.0

    init(width: Int, height: Int) {
        screen = LumaPlane(width: width, height: height, values: [UInt8](repeating: 0, count: width * height))
    }

    /// The mean SSIM over the ticks compared so far; nil before the first.
    var ssim: Double? { ticks == 0 ? nil : total / Double(ticks) }

    /// Draws an image as a decoder does: `shown` are the indices written, `table` its colours.
    mutating func draw(left: Int, top: Int, width: Int, height: Int, disposal: GIFDisposal,
                       transparentIndex: Int?, table: [UInt8], shown: [UInt8]) {
        if let rect = clearBeforeNext { fill(rect) }
        clearBeforeNext = nil
        var luma = [UInt8](repeating: 0, count: 256)
        for i in 0..<min(256, table.count / 3) {
            luma[i] = LumaPlane.luma(table[i * 3], table[i * 3 + 1], table[i * 3 + 2])
        }
        let transparent = transparentIndex ?? -1
        let (sw, sh) = (screen.width, screen.height)
        screen.values.withUnsafeMutableBufferPointer { out in
            shown.withUnsafeBufferPointer { indices in
                for y in 0..<height where top + y < sh {
                    for x in 0..<width where left + x < sw {
                        let index = Int(indices[y &* width &+ x])
                        if index != transparent { out[(top &+ y) &* sw &+ left &+ x] = luma[index] }
                    }
                }
            }
        }
        // Disposal "previous" is never written by clipkit; it is followed as "none".
        if disposal == .background { clearBeforeNext = PixelRect(x: left, y: top, width: width, height: height) }
    }

    /// Scores what is on screen now against the source frame of one tick.
    mutating func compare(with source: LumaPlane) {
        guard source.width == screen.width, source.height == screen.height else { return }
        let value = SSIM.of(screen, source)
        total += value
        ticks += 1
        lowest = min(lowest, value)
    }

    /// A cleared rectangle shows nothing: black, as a transparent pixel is measured.
    private mutating func fill(_ rect: PixelRect) {
        let (sw, sh) = (screen.width, screen.height)
        for y in rect.y..<min(rect.y + rect.height, sh) {
            for x in rect.x..<min(rect.x + rect.width, sw) { screen.values[y * sw + x] = 0 }
        }
    }
}
