// Reads a GIF file block by block and yields its images one at a time, decoding damaged files as browsers do.
import Foundation

/// A streaming GIF decoder: only the logical screen, one image and a small read buffer are in
/// memory at a time.
///
/// ```swift
/// let decoder = try GIFDecoder(url: url)
/// while let frame = try decoder.next() { ... }
/// ```
///
/// Damaged files are read the way browsers read them: an image whose data stops early keeps
/// the pixels it has (the rest are reported by `decodedPixelCount` and shown as transparent),
/// a missing end code or trailer ends the file cleanly, and extra data is skipped. Each of these
/// adds a line to `warnings`. Only a file that is not a GIF, whose header is cut, or whose first
/// image has no valid LZW data at all is an error.
public final class GIFDecoder {
    public let url: URL
    public let canvasWidth: Int
    public let canvasHeight: Int
    /// The global colour table as RGB triples, nil when the file has none.
    public let globalPalette: [UInt8]?
    public let backgroundIndex: Int
    /// The NETSCAPE2.0 / ANIMEXTS1.0 loop count as stored (0 means forever); nil when absent.
    /// Final once `next()` has returned nil.
    public internal(set) var loopCount: Int?
    /// What was wrong with the file but could be decoded around, in the order met.
    /// At most `maxWarnings` lines; a last one counts the rest, so a file damaged in every image
    /// cannot flood stderr.
    public var warnings: [String] {
        suppressed == 0 ? recorded : recorded + ["\(suppressed) more problems of this kind"]
    }
    var recorded: [String] = []
    var suppressed = 0
    static let maxWarnings = 10
    /// How many of the last returned image's pixels its data provided, counted in stored order
    /// (row by row in interlace pass order). The others hold index 0 and must be shown as transparent.
    public internal(set) var decodedPixelCount = 0
    /// Whether the last image scanned with its pixels counted (`countsPixels`) draws its
    /// transparent index at any of them; true when it was not counted (not known).
    var countedUsesTransparency = true
    /// Images read so far.
    public internal(set) var imageCount = 0

    // What the block readers (GIFDecoder+Blocks.swift) share with the calls above.
    /// GIF87a has no extensions: its images are frames of their own, as browsers play them.
    let isGIF87a: Bool
    let reader: GIFByteReader
    let lzw = LZWDecoder()
    let maxPixels: Int
    var pendingControl: GraphicControl?
    var finished = false
    /// Whether a pass without decoding (`scan`) counts the pixels each image's data provides
    /// (into `decodedPixelCount`) instead of skipping the data.
    var countsPixels = false

    /// The graphic control extension that applies to the next image.
    struct GraphicControl {
        var delay = 0
        var disposal = GIFDisposal.unspecified
        var transparentIndex: Int?
    }

    /// Opens `url` and reads the header and logical screen. Refuses, before allocating anything
    /// for pixels, a canvas with no area or with more than `maxPixels` pixels.
    public convenience init(url: URL, maxPixels: Int = 100_000_000) throws {
        try self.init(reader: GIFByteReader(url: url), url: url, maxPixels: maxPixels)
    }

    /// Decodes a GIF held in memory; `name` stands for it in errors (a fuzzer's input, a download).
    public convenience init(bytes: [UInt8], name: String = "<memory>", maxPixels: Int = 100_000_000) throws {
        try self.init(reader: GIFByteReader(bytes: bytes), url: URL(fileURLWithPath: name), maxPixels: maxPixels)
    }

    private init(reader: GIFByteReader, url: URL, maxPixels: Int) throws {
        self.url = url
        self.maxPixels = maxPixels
        self.reader = reader
        let path = url.path
        guard let header = reader.bytes(13) else {
            throw ClipKitError.notMedia(path: path, reason: "file too short for a GIF header")
        }
        guard let signature = String(bytes: header[0..<6], encoding: .ascii), signature == "GIF87a" || signature == "GIF89a" else {
            throw ClipKitError.notMedia(path: path, reason: "no GIF87a/GIF89a signature")
        }
        isGIF87a = signature == "GIF87a"
        canvasWidth = Int(header[6]) | Int(header[7]) << 8
        canvasHeight = Int(header[8]) | Int(header[9]) << 8
        let packed = header[10]
        backgroundIndex = Int(header[11])
        if canvasWidth == 0 || canvasHeight == 0 {
            throw ClipKitError.corrupt(path: path, reason: "GIF canvas is \(canvasWidth)x\(canvasHeight) pixels")
        }
        if canvasWidth * canvasHeight > maxPixels {  // at most 65535^2: cannot overflow
            throw ClipKitError.limitExceeded(path: path, what: "GIF canvas \(canvasWidth)x\(canvasHeight)",
                                             limit: "\(maxPixels) pixels", option: "--max-pixels")
        }
        if packed & 0x80 != 0 {
            let count = 3 << (Int(packed & 7) + 1)
            guard let table = reader.bytes(count) else {
                throw ClipKitError.corrupt(path: path, reason: "file ends inside the global colour table")
            }
            globalPalette = Array(table)
        } else {
            globalPalette = nil
        }
    }

    /// The next image, de-interlaced; nil after the last one.
    public func next() throws -> GIFFrame? {
        try nextImage(decoding: true)
    }

    /// Reads the rest of the file without decoding pixels and returns the delay of each
    /// remaining image: a quick pass that needs no image memory.
    public func remainingDelays() throws -> [Int] {
        try scan().delays
    }

    /// Reads the rest of the file without decoding pixels: each image's delay, which images form
    /// each displayed frame, the loop count, palettes and the pixels the images declare.
    /// `deadline` is checked at every image.
    public func scan(deadline: Deadline = .none) throws -> GIFScan {
        var scan = GIFScan(canvasWidth: canvasWidth, canvasHeight: canvasHeight, hasGlobalPalette: globalPalette != nil)
        // An image whose data gives fewer pixels than it declares (cut short, or damaged) leaves
        // the rest undrawn: transparent wherever no earlier image covered the canvas. So the
        // pixels are counted until an image covers the whole canvas.
        var covered = false
        // An image without a transparent index has covered the canvas whole: from then on a
        // transparent index only shows what lies under it, which is opaque (as optimisers and
        // ffmpeg use it, for the pixels that did not change); only clearing to the background can
        // make a pixel transparent. (Taken as transparent, such a GIF was re-encoded frame by
        // frame whole: 2.9 times the bytes of its source at 50 fps.)
        var opaque = false
        // The last image cleared its rectangle to the (transparent) background: it shows unless
        // the next image covers the canvas, whole and opaque (encoders that write every frame
        // whole, each clearing the last, over an opaque picture).
        var pendingClear = false
        var firstCoversOpaque = false
        // The table the images' indices are read against when they all mean the same colours.
        var sharedTable = globalPalette
        countsPixels = true
        defer { countsPixels = false }
        while let image = try nextImage(decoding: false) {
            try deadline.check(url.path)
            // Whether this image's decoded pixels were counted (see `countsPixels` below).
            let counted = countsPixels
            let wasOpaque = opaque
            // Its transparent index is drawn: declared, and (when its pixels were counted) used.
            // (ffmpeg's paletteuse reserves an index for transparency in every image, the first
            // over an opaque picture too: taken as drawn, a 320x240 GIF of it was re-encoded
            // frame by frame whole, 1.4 times its source's bytes.)
            let drawsTransparent = image.transparentIndex != nil && countedUsesTransparency
            let coversCanvas = image.left == 0 && image.top == 0 && image.width >= canvasWidth && image.height >= canvasHeight
            let coversOpaque = coversCanvas && counted && decodedPixelCount >= image.width * image.height
                && !drawsTransparent && image.disposal != .previous
            if scan.delays.isEmpty { firstCoversOpaque = coversOpaque }
            if pendingClear && !coversOpaque { scan.mayBeTransparent = true }
            pendingClear = image.disposal == .background
            if decodedPixelCount < image.width * image.height && !covered {
                scan.mayBeTransparent = true
            } else if coversCanvas {
                covered = true
                // (Restored to what was before it, the canvas would be clear again.)
                if !drawsTransparent && image.disposal != .previous { opaque = true }
            }
            scan.delays.append(image.delay)
            scan.controlled.append(image.hasGraphicControl)
            scan.tableBytes += image.localPalette?.count ?? globalPalette?.count ?? 0
            if let local = image.localPalette {
                scan.localPaletteCount += 1
                // (ffmpeg gives the first image a copy of the global table; some encoders give
                // every image the same table and write no global one.)
                if let shared = sharedTable {
                    if !(local.count <= shared.count && shared.starts(with: local)) { scan.ownPaletteCount += 1 }
                } else {
                    sharedTable = local
                }
            } else if sharedTable == nil {
                scan.ownPaletteCount += 1
            }
            scan.declaredPixels += image.width * image.height
            if (drawsTransparent && !opaque) || (image.disposal == .previous && !wasOpaque)
                || (scan.delays.count == 1 && (image.left > 0 || image.top > 0
                    || image.left + image.width < canvasWidth || image.top + image.height < canvasHeight)) {
                scan.mayBeTransparent = true
            }
            // The next image's pixels are counted until an image covers the canvas, and after a
            // clear (whether the next covers it whole).
            countsPixels = (!covered && !scan.mayBeTransparent) || pendingClear
        }
        // The last image's clear shows when the animation starts again, unless the first covers it.
        if pendingClear && !firstCoversOpaque { scan.mayBeTransparent = true }
        scan.frames = Compositor.displayedFrames(delays: scan.delays, controlled: scan.controlled)
        scan.loopCount = loopCount
        scan.warnings = warnings
        return scan
    }

    /// Display row of each stored row of an interlaced image `height` rows high (passes of
    /// every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    public static func interlacedRowOrder(height: Int) -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(height)
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            order.append(contentsOf: stride(from: start, to: height, by: step))
        }
        return order
    }
}
