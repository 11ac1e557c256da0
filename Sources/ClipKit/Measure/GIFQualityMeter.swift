// Follows what a GIF viewer shows while the GIF is written, and scores it against the source.

/// Measures a GIF as it is written: what a viewer shows after each image (disposals and
/// transparency applied, lossy compression included, since it draws the indices as written),
/// compared with the source frame each output tick stands for, so a frame held for several
/// ticks counts for each.
///
/// Two figures: luma SSIM on every tick (a measurement of the file with FFmpeg,
/// bench/quality.py, gives the same figure within a few thousandths), and SSIMULACRA2 on the
/// colours (the mean and the 5th percentile over the ticks scored). SSIMULACRA2 costs about 20
/// luma SSIMs, so it scores at most `ssimulacra2PerSecond` ticks per second of output: the first
/// tick, then the first tick at least 1/rate seconds after the last one scored, and the last tick
/// (what the GIF ends on) in any case. Which ticks depends only on the output times, so the
/// figures are deterministic.
///
/// The ticks picked may be scored late: their pictures wait (up to `maxWaitingBytes`, oldest
/// scored first when more come) until `finish()`, so a `--max-bytes` pass that stops early, its
/// GIF thrown away, never pays for them; or each once the next is picked (`scoreAsTicksCome()`),
/// for a GIF that will be kept, measured beside the writer (`GIFMeterStage`). A tick that shows what the tick before it showed, against
/// the same source, is not scored again: it repeats that score (a still stretch costs a
/// comparison, not a measurement). The figures are the same, the scores taken in the same order.
struct GIFQualityMeter {
    /// Ticks scored by SSIMULACRA2 per second of output, at most.
    static let ssimulacra2PerSecond = 2.0

    private var screen: LumaPlane
    /// What the viewer sees in colour: RGBA, opaque (a cleared or never drawn pixel is black).
    private var colours: [UInt8]
    /// The last image's rectangle when its disposal clears it before the next is drawn.
    private var clearBeforeNext: PixelRect?
    private var total = 0.0
    private(set) var ticks = 0
    /// The lowest SSIM of one tick.
    private(set) var lowest = 1.0
    /// SSIMULACRA2 of the ticks scored so far, in tick order.
    private(set) var scores: [Double] = []
    private var nextScoredTime = -Double.infinity
    /// The latest tick not scored by SSIMULACRA2 (what the viewer saw, the source), kept in
    /// case it is the last.
    private var unscored: (screen: RGBAImage, source: RGBAImage)?
    /// Ticks picked for SSIMULACRA2, not scored yet, oldest first: what the viewer saw, the
    /// source, and how many ticks picked after it showed the same against the same.
    private var waiting: [(screen: RGBAImage, source: RGBAImage, repeats: Int)] = []
    /// Bytes of the pictures in `waiting`.
    private var waitingPictureBytes = 0
    /// What the viewer sees has not changed since the last tick compared, whose luma and SSIM these are.
    private var screenUnchanged = false
    private var lastLuma: LumaPlane?
    private var lastSSIM = 0.0
    /// The pictures of ticks waiting for SSIMULACRA2 take at most this many bytes (at least one
    /// tick waits): 16 ticks, 8 s of output, of a 480x270 GIF; a pass that stops early (at 30%
    /// of its frames) has scored none of a clip up to about 25 s at that size.
    static let maxWaitingBytes = 16 * 480 * 270 * 8
    /// This meter's bound on the waiting pictures (`maxWaitingBytes` but in tests; 0 once
    /// `scoreAsTicksCome()`).
    private var waitingBytes: Int
    /// SSIMULACRA2's planes, made once for the size it scores at.
    private let workspace: SSIMULACRA2Workspace
    /// SSIMULACRA2 scores pictures of at most this many pixels: a larger GIF is scored with both
    /// pictures box-averaged by the smallest whole factor that fits. Its planes take about 90
    /// bytes a pixel (3.3 GB for a 6000x6000 GIF, past `--max-memory`; 190 MB at 1920x1080).
    static let maxScoredPixels = 1920 * 1080
    /// The box side SSIMULACRA2's pictures are averaged over (1: the GIF's own size).
    let reduction: Int
    /// What SSIMULACRA2 takes per pixel scored: its planes, both pictures in linear RGB and their
    /// reductions, the two pictures waiting. Measured 81 (peak RSS of a `--measure` run less an
    /// unmeasured one, 1000x1000 and 1440x1440 PNG frames, and 2000x2000 scored at 1000x1000).
    static let bytesPerScoredPixel = 90

    /// The memory a meter of a `width` x `height` GIF takes whatever its per-pixel planes: what
    /// SSIMULACRA2 works in, at the size it scores (at most `maxScoredPixels`).
    static func memory(width: Int, height: Int) -> Int {
        guard width > 0, height > 0 else { return 0 }
        let scored = reducedSize(width: width, height: height, by: reduction(width: width, height: height))
        return scored.width * scored.height * bytesPerScoredPixel
    }

    init(width: Int, height: Int, maxWaitingBytes: Int = Self.maxWaitingBytes) {
        waitingBytes = maxWaitingBytes
        screen = LumaPlane(width: width, height: height, values: [UInt8](repeating: 0, count: width * height))
        colours = [UInt8](repeating: 0, count: width * height * 4)
        reduction = Self.reduction(width: width, height: height)
        let scored = Self.reducedSize(width: width, height: height, by: reduction)
        workspace = SSIMULACRA2Workspace(pixels: scored.width * scored.height)
        for i in stride(from: 3, to: colours.count, by: 4) { colours[i] = 255 }
    }

    /// The smallest box side that brings a `width` x `height` picture within `maxScoredPixels`.
    static func reduction(width: Int, height: Int) -> Int {
        var side = 1
        while true {
            let size = reducedSize(width: width, height: height, by: side)
            if size.width * size.height <= maxScoredPixels { return side }
            side += 1
        }
    }

    static func reducedSize(width: Int, height: Int, by side: Int) -> (width: Int, height: Int) {
        ((width + side - 1) / side, (height + side - 1) / side)
    }

    /// Packed RGBA `pixels` of a `width` x `height` picture averaged over `side` x `side` boxes
    /// (the last row and column of boxes over what is there), opaque; the pixels themselves at side 1.
    static func reduced(_ pixels: [UInt8], width: Int, height: Int, by side: Int) -> RGBAImage {
        let picture = RGBAImage(width: width, height: height, pixels: pixels)
        if side == 1 { return picture }
        var reduced = picture.boxAveraged(across: side, down: side)
        for i in stride(from: 3, to: reduced.pixels.count, by: 4) { reduced.pixels[i] = 255 }
        return reduced
    }

    /// The mean SSIM over the ticks compared so far; nil before the first.
    var ssim: Double? { ticks == 0 ? nil : total / Double(ticks) }

    /// The mean SSIMULACRA2 over the ticks scored (all of them after `finish()`); nil before the
    /// first, or for a GIF under 8 pixels on a side (SSIMULACRA2 has no score for it).
    var ssimulacra2: Double? { scores.isEmpty ? nil : scores.reduce(0, +) / Double(scores.count) }

    /// The 5th percentile of the ticks' SSIMULACRA2 (nearest rank): the worst stretch of the GIF.
    var ssimulacra2P5: Double? {
        guard !scores.isEmpty else { return nil }
        let sorted = scores.sorted()
        return sorted[max(Int((0.05 * Double(sorted.count)).rounded(.up)) - 1, 0)]
    }

    /// Draws an image as a decoder does: `shown` are the indices written, `table` its colours.
    mutating func draw(left: Int, top: Int, width: Int, height: Int, disposal: GIFDisposal,
                       transparentIndex: Int?, table: [UInt8], shown: [UInt8]) {
        if let rect = clearBeforeNext { fill(rect) }
        clearBeforeNext = nil
        screenUnchanged = false
        var luma = [UInt8](repeating: 0, count: 256)
        var rgb = [UInt8](repeating: 0, count: 256 * 3)
        for i in 0..<min(256, table.count / 3) {
            luma[i] = LumaPlane.luma(table[i * 3], table[i * 3 + 1], table[i * 3 + 2])
            rgb[i * 3] = table[i * 3]; rgb[i * 3 + 1] = table[i * 3 + 1]; rgb[i * 3 + 2] = table[i * 3 + 2]
        }
        let transparent = transparentIndex ?? -1
        let (sw, sh) = (screen.width, screen.height)
        screen.values.withUnsafeMutableBufferPointer { out in
        colours.withUnsafeMutableBufferPointer { colourOut in
        rgb.withUnsafeBufferPointer { rgb in
            shown.withUnsafeBufferPointer { indices in
                for y in 0..<height where top + y < sh {
                    for x in 0..<width where left + x < sw {
                        let index = Int(indices[y &* width &+ x])
                        guard index != transparent else { continue }
                        let at = (top &+ y) &* sw &+ left &+ x
                        out[at] = luma[index]
                        colourOut[at &* 4] = rgb[index &* 3]
                        colourOut[at &* 4 &+ 1] = rgb[index &* 3 &+ 1]
                        colourOut[at &* 4 &+ 2] = rgb[index &* 3 &+ 2]
                    }
                }
            }
        }}}
        // Disposal "previous" is never written by clipkit; it is followed as "none".
        if disposal == .background { clearBeforeNext = PixelRect(x: left, y: top, width: width, height: height) }
    }

    /// Scores what is on screen now against the source frame of one tick (`time`, output
    /// seconds): its luma always, its colours (`source`) when the tick is sampled.
    mutating func compare(with luma: LumaPlane, source: RGBAImage?, time: Double) {
        guard luma.width == screen.width, luma.height == screen.height else { return }
        // Nothing drawn since the last tick and the same source: the same SSIM.
        let value = screenUnchanged && lastLuma == luma ? lastSSIM : SSIM.of(screen, luma)
        (lastSSIM, lastLuma, screenUnchanged) = (value, luma, true)
        total += value
        ticks += 1
        lowest = min(lowest, value)
        guard let wanted = source, wanted.width == screen.width, wanted.height == screen.height else { return }
        let shown = Self.reduced(colours, width: screen.width, height: screen.height, by: reduction)
        let source = Self.reduced(wanted.pixels, width: wanted.width, height: wanted.height, by: reduction)
        if time >= nextScoredTime {
            wait(shown, source)
            nextScoredTime = time + 1 / Self.ssimulacra2PerSecond
            unscored = nil
        } else {
            unscored = (shown, source)
        }
    }

    /// The stream ended: scores the ticks waiting, and the last tick if the sampling passed it over.
    mutating func finish() {
        if let (shown, source) = unscored { wait(shown, source) }
        unscored = nil
        while !waiting.isEmpty { scoreOldest() }
    }

    /// From now on scores each tick picked once the next is picked (the last waits, in case the
    /// next repeats it), and the ticks waiting now: for a meter whose GIF will be kept.
    mutating func scoreAsTicksCome() {
        waitingBytes = 0
        while waiting.count > 1 { scoreOldest() }
    }

    /// Ticks picked for SSIMULACRA2 and not scored yet.
    var ticksWaiting: Int { waiting.reduce(0) { $0 + 1 + $1.repeats } }

    /// Puts a tick in line for SSIMULACRA2 (as a repeat when its pictures are the last tick's),
    /// scoring the oldest ones first past `maxWaitingBytes`.
    private mutating func wait(_ shown: RGBAImage, _ source: RGBAImage) {
        // The last tick picked is always still waiting: only older ones are scored before the end.
        if let last = waiting.last, last.screen == shown, last.source == source {
            waiting[waiting.count - 1].repeats += 1
            return
        }
        waiting.append((shown, source, 0))
        waitingPictureBytes += shown.pixels.count + source.pixels.count
        while waitingPictureBytes > waitingBytes, waiting.count > 1 { scoreOldest() }
    }

    /// Scores the oldest tick waiting, and gives its repeats the same score.
    private mutating func scoreOldest() {
        let tick = waiting.removeFirst()
        waitingPictureBytes -= tick.screen.pixels.count + tick.source.pixels.count
        if let score = SSIMULACRA2.score(reference: tick.source, distorted: tick.screen, workspace: workspace) {
            scores += repeatElement(score, count: 1 + tick.repeats)
        }
    }

    /// A cleared rectangle shows nothing: black, as a transparent pixel is measured.
    private mutating func fill(_ rect: PixelRect) {
        let (sw, sh) = (screen.width, screen.height)
        for y in rect.y..<min(rect.y + rect.height, sh) {
            for x in rect.x..<min(rect.x + rect.width, sw) {
                screen.values[y * sw + x] = 0
                colours[(y * sw + x) * 4] = 0; colours[(y * sw + x) * 4 + 1] = 0; colours[(y * sw + x) * 4 + 2] = 0
            }
        }
    }
}
