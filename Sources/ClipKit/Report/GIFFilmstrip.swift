// The GIF's frames for a clip with no `explode` output: every delay from a scan, a few frames decoded into one small sheet.
import Foundation

/// What the filmstrip of a clip's GIF shows when no `explode` output holds its frames.
///
/// Cheap by construction: the delays of every frame come from a scan of the blocks (no pixel
/// decoded); pictures only for at most `maxShown` frames spread over the animation, shrunk to
/// `thumbnailWidth` pixels wide and written side by side as one PNG per clip in `media/`.
/// Decoding stops after the last frame shown, and the whole report decodes at most
/// `pixelBudget` canvas pixels for filmstrips (about a third of a second here; 130 clips of
/// 40 frames at 160x120), spent in input order: from the first clip that does not fit, every
/// filmstrip lists its delays without pictures (`ReportWriter` stops spending there, so a later
/// smaller GIF does not slip in), marked `skippedForBudget` and named on the page, so a report of
/// thousands of clips stays fast and the same every run.
public struct GIFFilmstrip: Sendable, Equatable {
    static let maxShown = 12
    static let thumbnailWidth = 80
    static let pixelBudget = 100_000_000

    /// Every displayed frame's stored delay, in milliseconds (explode's `delay_ms`).
    public var delaysMs: [Int]
    /// The frames pictured (0-based displayed-frame numbers), in order.
    public var shown: [Int]
    /// The sheet of their thumbnails (report-relative), nil when only delays are listed.
    public var sheetHref: String?
    /// No pictures because the report's pixel budget was spent before this clip.
    public var skippedForBudget = false

    /// Where frame `index` starts, in milliseconds.
    public func startMs(_ index: Int) -> Int { delaysMs.prefix(index).reduce(0, +) }

    /// `count` frame numbers spread evenly from the first to the last.
    static func spread(_ count: Int, over total: Int) -> [Int] {
        guard total > count else { return Array(0..<total) }
        guard count > 1 else { return [0] }
        return (0..<count).map { $0 * (total - 1) / (count - 1) }
    }

    /// Scans the GIF at `url` and, while `budget` (canvas pixels left) allows, decodes the frames
    /// shown and writes their sheet to `directory/name`. Returns nil for a GIF it cannot read.
    static func make(from url: URL, writingSheet name: String, in directory: URL, budget: inout Int, limits: Limits) throws -> GIFFilmstrip? {
        let animation: GIFAnimation
        do {
            animation = try GIFAnimation(url: url, limits: limits)
        } catch {
            try limits.checkDeadline(url.path)
            return nil
        }
        let scan = animation.scan
        let delays = scan.frames.map { range in range.reduce(0) { $0 + scan.delays[$1] } * 10 }
        var strip = GIFFilmstrip(delaysMs: delays, shown: spread(maxShown, over: delays.count))
        let canvas = scan.canvasWidth * scan.canvasHeight
        let cost = canvas * ((strip.shown.last ?? 0) + 1)
        guard canvas > 0 else { return strip }
        guard cost <= budget else {
            strip.skippedForBudget = true
            return strip
        }
        budget -= cost
        var thumbnails: [RGBAImage] = []
        do {
            for index in 0...(strip.shown.last ?? 0) {
                guard let frame = try animation.next() else { break }
                if strip.shown.contains(index) { thumbnails.append(shrink(frame.canvas, toWidth: thumbnailWidth)) }
            }
        } catch {
            try limits.checkDeadline(url.path)
            return strip
        }
        guard thumbnails.count == strip.shown.count, let first = thumbnails.first else { return strip }
        let sheet = side(by: thumbnails, width: first.width, height: first.height)
        try PNGWriter.write(sheet, to: directory.appendingPathComponent(name))
        strip.sheetHref = name
        return strip
    }

    /// Box-filtered to `width` pixels wide (never enlarged), the height in proportion.
    static func shrink(_ image: RGBAImage, toWidth width: Int) -> RGBAImage {
        guard image.width > width, image.width > 0 else { return image }
        let height = max(1, (image.height * width + image.width / 2) / image.width)
        let sourceWidth = image.width, sourceHeight = image.height
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    let y0 = y * sourceHeight / height, y1 = max(y0 + 1, (y + 1) * sourceHeight / height)
                    for x in 0..<width {
                        let x0 = x * sourceWidth / width, x1 = max(x0 + 1, (x + 1) * sourceWidth / width)
                        var r = 0, g = 0, b = 0, a = 0
                        for sy in y0..<y1 {
                            var at = (sy * sourceWidth + x0) * 4
                            for _ in x0..<x1 {
                                r &+= Int(source[at]); g &+= Int(source[at + 1]); b &+= Int(source[at + 2]); a &+= Int(source[at + 3])
                                at &+= 4
                            }
                        }
                        let count = (y1 - y0) * (x1 - x0), out = (y * width + x) * 4
                        target[out] = UInt8(r / count); target[out + 1] = UInt8(g / count)
                        target[out + 2] = UInt8(b / count); target[out + 3] = UInt8(a / count)
                    }
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// The thumbnails (all `width` x `height`) left to right.
    static func side(by images: [RGBAImage], width: Int, height: Int) -> RGBAImage {
        var sheet = RGBAImage(width: width * images.count, height: height)
        for (index, image) in images.enumerated() {
            for y in 0..<height {
                let from = y * width * 4, to = (y * sheet.width + index * width) * 4
                sheet.pixels.replaceSubrange(to..<(to + width * 4), with: image.pixels[from..<(from + width * 4)])
            }
        }
        return sheet
    }

    /// Runs of equal delays: `100 ms x39, 200 ms`.
    var delaySummary: String {
        var runs: [(Int, Int)] = []
        for delay in delaysMs {
            if let last = runs.last, last.0 == delay { runs[runs.count - 1].1 += 1 } else { runs.append((delay, 1)) }
        }
        return runs.map { $0.1 > 1 ? "\($0.0) ms ×\($0.1)" : "\($0.0) ms" }.joined(separator: ", ")
    }
}
