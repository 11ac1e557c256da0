// A GIF's frames as a browser shows them: decode, composite, group zero-delay images; the one GIF input path.
import Foundation

/// One frame of a GIF as it is on screen.
public struct DisplayedFrame: Sendable {
    /// 0-based number of the frame.
    public var index: Int
    /// The whole canvas while this frame is shown (transparent where nothing was drawn).
    public var canvas: RGBAImage
    /// The frame's stored delay in centiseconds: the sum of its images' delays.
    public var delay: Int
    /// The last image drawn for this frame, as stored (its `indices` are left empty).
    public var image: GIFFrame
}

/// Reads a GIF frame by frame as browsers show it, for every command that takes GIF input
/// (explode, thumb, gif, info) and for the tests and fuzzers.
///
/// A first pass (`scan`) reads the blocks without pixels: which images form each displayed
/// frame must be known before the first is shown. Then `next()` decodes and composites one
/// displayed frame at a time; only the canvas and one image are in memory. The deadline of
/// `limits` is checked at every image, and the pixels all images declare are refused up front
/// when they pass what `limits` allows (a flood of huge zero-delay images in a tiny file).
public final class GIFAnimation {
    public let scan: GIFScan
    private let decoder: GIFDecoder
    private var compositor: Compositor
    private let limits: Limits
    private var nextIndex = 0

    /// Opens the GIF at `url`; `limits.maxPixels` bounds the canvas and every image.
    public convenience init(url: URL, limits: Limits = Limits()) throws {
        let scanner = try GIFDecoder(url: url, maxPixels: limits.maxPixels)
        try self.init(scan: scanner.scan(deadline: limits.deadline), decoder: GIFDecoder(url: url, maxPixels: limits.maxPixels),
                      limits: limits)
    }

    /// A GIF held in memory; `name` stands for it in errors.
    public convenience init(bytes: [UInt8], name: String = "<memory>", limits: Limits = Limits()) throws {
        let scanner = try GIFDecoder(bytes: bytes, name: name, maxPixels: limits.maxPixels)
        try self.init(scan: scanner.scan(deadline: limits.deadline),
                      decoder: GIFDecoder(bytes: bytes, name: name, maxPixels: limits.maxPixels), limits: limits)
    }

    private init(scan: GIFScan, decoder: GIFDecoder, limits: Limits) throws {
        guard !scan.frames.isEmpty else { throw ClipKitError.noFrames(path: decoder.url.path, reason: "the GIF has no images") }
        try limits.checkDecodeWork(scan.declaredPixels, canvas: scan.canvasWidth * scan.canvasHeight, path: decoder.url.path)
        // The canvas, and the copy a shown frame keeps (or restore-previous saves): refused from the
        // scan before the compositor allocates the first (each use checks its own memory after).
        try limits.checkMemory(pictures: 2, of: scan.canvasWidth * scan.canvasHeight * 4, what: "GIF canvases", path: decoder.url.path)
        self.scan = scan
        self.decoder = decoder
        self.limits = limits
        compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
    }

    public var canvasWidth: Int { scan.canvasWidth }
    public var canvasHeight: Int { scan.canvasHeight }
    /// The loop count as stored (0 forever), nil when the GIF has none.
    public var loopCount: Int? { scan.loopCount }
    /// Damage decoded around so far, in the order met.
    public var warnings: [String] { decoder.warnings }

    /// The next displayed frame, nil after the last.
    public func next() throws -> DisplayedFrame? {
        guard nextIndex < scan.frames.count else { return nil }
        var delay = 0
        var last: GIFFrame?
        for _ in scan.frames[nextIndex] {
            try limits.checkDeadline(decoder.url.path)
            guard var image = try decoder.next() else { break }
            compositor.draw(image, decodedPixels: decoder.decodedPixelCount)
            delay += image.delay
            image.indices = []
            last = image
        }
        guard let last else {
            nextIndex = scan.frames.count
            return nil
        }
        defer { nextIndex += 1 }
        return DisplayedFrame(index: nextIndex, canvas: compositor.canvas, delay: delay, image: last)
    }

    /// Reads on to the trailer, so damage after the last image (a missing trailer) is in `warnings`.
    public func readToEnd() throws {
        while try decoder.next() != nil { try limits.checkDeadline(decoder.url.path) }
    }
}
