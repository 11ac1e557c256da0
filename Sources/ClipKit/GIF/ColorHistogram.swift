// Colours counted for a palette: 32768 bins of 5 bits a channel with exact sums, and the exact colours while they are few.

/// Counts colours in 32768 bins (5 bits per channel) with exact channel sums, and remembers the
/// exact distinct colours while there are at most 256 of them.
struct ColorHistogram: Sendable {
    struct Bin { var key: Int; var r: Double; var g: Double; var b: Double; var count: Int }

    private var counts = [Int](repeating: 0, count: 32768)
    private var sums = [Int](repeating: 0, count: 32768 * 3)
    private var distinct = Set<UInt32>()
    private var tooMany = false
    /// The colours one by one, while there are at most `countedLimit` of them (nil past that, or
    /// when not asked for): a histogram of many frames is made into a palette once they are gone.
    private var counted: [UInt32: Int]?
    private var countedLimit = 0

    /// `countingColorsUpTo`: also count the distinct colours one by one, up to that many
    /// (`countedBins`), for a palette of frames that are not at hand when it is made.
    init(countingColorsUpTo limit: Int? = nil) {
        if let limit {
            counted = [:]
            countedLimit = limit
        }
    }

    /// Adds the pixels of `image` whose `mask` entry is true (all when nil).
    mutating func add(_ image: RGBAImage, mask: [Bool]? = nil) {
        let count = image.width * image.height
        var lastInserted = UInt32.max
        image.pixels.withUnsafeBufferPointer { p in
            counts.withUnsafeMutableBufferPointer { counts in
                sums.withUnsafeMutableBufferPointer { sums in
                    for i in 0..<count {
                        if let mask, !mask[i] { continue }
                        // Wrapping arithmetic in this hot loop: i < width * height, key < 32768, and
                        // the sums are at most 255 per pixel of a frame of at most Int.max / 255.
                        let i4 = i &* 4
                        let r = Int(p[i4]), g = Int(p[i4 &+ 1]), b = Int(p[i4 &+ 2])
                        let key = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
                        counts[key] &+= 1
                        let k3 = key &* 3
                        sums[k3] &+= r; sums[k3 &+ 1] &+= g; sums[k3 &+ 2] &+= b
                        // A run of one colour (flat areas, screen recordings) is one insert, not a
                        // hash per pixel: 36 million on a flat 6000x6000 PNG.
                        let rgb = UInt32(truncatingIfNeeded: r << 16 | g << 8 | b)
                        if !tooMany, rgb != lastInserted {
                            lastInserted = rgb
                            distinct.insert(rgb)
                            if distinct.count > 256 { tooMany = true; distinct.removeAll() }
                        }
                    }
                }
            }
        }
        if counted != nil, !Self.count(image, mask: mask, into: &counted!, limit: countedLimit) { counted = nil }
    }

    /// The colours added as bins of their own (`countedColors`), when they were counted and are
    /// at most the limit.
    func countedBins() -> [Bin]? {
        guard let counted, !counted.isEmpty else { return nil }
        return Self.bins(counted)
    }

    /// How many distinct colours were added, while there are at most 256; nil past that.
    var distinctCount: Int? { tooMany ? nil : distinct.count }

    /// The distinct colours as sorted RGB triples, while there are at most 256.
    var exactColors: [UInt8]? {
        guard !tooMany, !distinct.isEmpty else { return nil }
        return distinct.sorted().flatMap { [UInt8($0 >> 16 & 255), UInt8($0 >> 8 & 255), UInt8($0 & 255)] }
    }

    /// Each distinct colour of the pixels of `image` whose `mask` entry is true as a bin of
    /// its own (keyed by its RGB), sorted; nil past `limit` colours (it stops counting there).
    static func countedColors(of image: RGBAImage, mask: [Bool]?, limit: Int) -> [Bin]? {
        var counts: [UInt32: Int] = [:]
        guard count(image, mask: mask, into: &counts, limit: limit), !counts.isEmpty else { return nil }
        return bins(counts)
    }

    /// Adds the pixels of `image` whose `mask` entry is true to `counts`, colour by colour;
    /// false once there are more than `limit` colours (it stops counting there).
    private static func count(_ image: RGBAImage, mask: [Bool]?, into counts: inout [UInt32: Int], limit: Int) -> Bool {
        var run = UInt32.max, length = 0
        let pixels = image.width * image.height
        return image.pixels.withUnsafeBufferPointer { p -> Bool in
            for i in 0..<pixels {
                if let mask, !mask[i] { continue }
                let rgb = UInt32(p[i * 4]) << 16 | UInt32(p[i * 4 + 1]) << 8 | UInt32(p[i * 4 + 2])
                // A run of one colour is one count, not a hash per pixel.
                if rgb == run { length += 1; continue }
                if length > 0 {
                    counts[run, default: 0] += length
                    if counts.count > limit { return false }
                }
                (run, length) = (rgb, 1)
            }
            if length > 0 { counts[run, default: 0] += length }
            return counts.count <= limit
        }
    }

    private static func bins(_ counts: [UInt32: Int]) -> [Bin] {
        counts.keys.sorted().map { rgb in
            Bin(key: Int(rgb), r: Double(rgb >> 16 & 255), g: Double(rgb >> 8 & 255), b: Double(rgb & 255), count: counts[rgb]!)
        }
    }

    func occupiedBins() -> [Bin] {
        var bins: [Bin] = []
        for key in 0..<32768 where counts[key] > 0 {
            let n = Double(counts[key])
            bins.append(Bin(key: key, r: Double(sums[key * 3]) / n, g: Double(sums[key * 3 + 1]) / n,
                            b: Double(sums[key * 3 + 2]) / n, count: counts[key]))
        }
        return bins
    }
}
