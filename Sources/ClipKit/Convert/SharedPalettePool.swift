// Small pictures (`--palette auto`): frames held back until one palette for the clip is known.

/// The frames of a small picture, held (up to `budget` bytes) while their colours are counted,
/// so that one palette for the clip, the GIF's global table, serves them all instead of a local
/// table on each frame.
///
/// A local table of 256 colours is 768 bytes a frame. On a 480 x 270 frame that is a few
/// percent of its bytes; on a 64 x 36 one it outweighs the picture: on the bench's 3 s cuts at
/// 32-64 px, local tables were 31-68% of the per-frame GIF's bytes, which made it 1.2-2.4 times
/// the size of ffmpeg's palettegen recipe (bench/small_widths.py). With one palette the cuts
/// came to 27-65% under the bytes of the recipe + gifsicle -O3 and scored higher. At 160 px the tables are
/// 10-16% and one palette cost the 720p cut 21 points for 24% fewer bytes: frames of that size
/// keep their own colours. So sharing `applies` where a frame's own table would be at least a
/// quarter of its bytes (an estimate): with 256 colours, pictures of up to 4,608 pixels.
///
/// No second decode (as `--palette global` makes): the frames wait here, a few KB each. Past the
/// budget (a long clip), the palette is made from the frames held, which take it; the frames
/// after them get their own tables as with `--palette per-frame`.
///
/// Not under `--max-bytes`: its search narrows the picture expecting bytes to fall with the
/// pixels, and sharing halves them at the threshold, so a fit landed at 56% of its limit on a
/// 160 x 120 clip (the widest shared width was far under, the next wider one over).
struct SharedPalettePool {
    /// The frames held, in order.
    private(set) var frames: [VideoFrame] = []
    /// The table entries each frame held would take on its own (its distinct colours, up to
    /// `colors`, and the transparent entry).
    private var ownTables: [Int] = []
    /// Whether every frame held fits its own table exactly (at most `colors` colours).
    private var everyFrameFits = true
    private var histogram = ColorHistogram(countingColorsUpTo: Quantizer.countedLimit)
    private var bytes = 0
    let budget: Int
    /// Most frames held (`Limits.maxFrames`: the writer refuses more, but only once they reach it).
    let maxFrames: Int

    /// Colours beside the transparent entry (`GIFOptions.colorsBesideTransparent`).
    let colors: Int

    init(budget: Int, maxFrames: Int, colors: Int) {
        self.budget = budget
        self.maxFrames = maxFrames
        self.colors = colors
    }

    /// What a frame held costs beside its pixels (the frame and its image's buffer), so that
    /// pictures of a few pixels are not held by the million.
    static let frameOverhead = 128

    /// Estimated bytes a pixel of a frame costs without its table (dithered natural video at the
    /// defaults writes 0.4-0.6 a pixel at 32-480 px; flat pictures less, which makes tables weigh more).
    static let bytesPerPixel = 0.5
    /// The share of a frame's bytes that its own table must reach for frames to share one.
    static let smallestTableShare = 0.25
    /// Most bytes of frames held: about 450 frames of 4,608 pixels, 3,400 of 32 x 18.
    static let largestBudget = 8 << 20

    /// Whether frames of `width` x `height` share one palette under `options` (`--palette auto`).
    static func applies(width: Int, height: Int, options: GIFOptions) -> Bool {
        guard options.palette == .auto, options.maxBytes == nil, width > 0, height > 0 else { return false }
        let entries = GIFEncoder.tableSize(colors: options.colorsBesideTransparent + 1)
        let table = 3.0 * Double(entries)
        return table / (table + bytesPerPixel * Double(width) * Double(height)) >= smallestTableShare
    }

    /// The bytes of frames held under `limits`: a quarter of `--max-memory`, at most `largestBudget`.
    static func budget(limits: Limits) -> Int {
        min(largestBudget, limits.maxMemory / 4)
    }

    /// Holds `frame` and counts its colours; false (nothing held) when it would pass the budget.
    mutating func hold(_ frame: VideoFrame) -> Bool {
        let size = frame.image.pixels.count + Self.frameOverhead
        guard frames.isEmpty || (bytes + size <= budget && frames.count < maxFrames) else { return false }
        histogram.add(frame.image)
        frames.append(frame)
        let own = Self.distinctColors(frame.image, upTo: colors + 1)
        if own > colors { everyFrameFits = false }
        ownTables.append(GIFEncoder.tableSize(colors: min(own, colors) + 1))
        bytes += size
        return true
    }

    /// The distinct colours of `image`, counted up to `limit` (past it, `limit`).
    static func distinctColors(_ image: RGBAImage, upTo limit: Int) -> Int {
        var seen = Set<UInt32>()
        var last = UInt32.max
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count, seen.count < limit {
                let rgb = UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2])
                if rgb != last { seen.insert(rgb); last = rgb }
                i += 4
            }
        }
        return min(seen.count, limit)
    }

    /// The palette for the frames held (`options.colorsBesideTransparent`, so an entry stays free
    /// for the transparent index), and the frames, handed over. No palette when its table would
    /// be larger than the frames' own tables mostly are: frames of a few colours each (flat
    /// pictures, 2-4 entries a table) draw with small tables and short codes, which a table of
    /// all the clip's colours would lengthen on every pixel (a 64 x 48 clip of two colours a frame
    /// and 36 in all grew 15% shared). No palette either when every frame fits its own table
    /// exactly and the clip's colours do not fit one: sharing would make lossless frames lossy
    /// (a 64 x 48 GIF of 233-242 colours a frame, 941 in all, was re-encoded dithered).
    mutating func release(options: GIFOptions) -> (palette: Palette?, frames: [VideoFrame]) {
        defer { frames = []; ownTables = []; bytes = 0; histogram = ColorHistogram(countingColorsUpTo: Quantizer.countedLimit); everyFrameFits = true }
        guard !frames.isEmpty else { return (nil, []) }
        if everyFrameFits, (histogram.distinctCount ?? .max) > colors { return (nil, frames) }
        let palette = Quantizer(maxColors: options.colorsBesideTransparent, errorTarget: Double(options.paletteError))
            .palette(for: histogram) { histogram.countedBins() }
        let typical = ownTables.sorted()[ownTables.count / 2]
        guard GIFEncoder.tableSize(colors: palette.count + 1) <= typical else { return (nil, frames) }
        return (palette, frames)
    }
}
