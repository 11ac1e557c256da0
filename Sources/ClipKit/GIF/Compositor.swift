// Turns decoded GIF images into the canvases a browser shows: disposal, clipping, palettes, transparency, tiling.

/// Draws GIF images one after another onto a canvas the way browsers do.
///
/// The canvas starts transparent (0,0,0,0), not in the background colour: browsers ignore the
/// background index, and "restore to background" clears the image's rectangle to transparent.
/// Images are clipped to the canvas. Pixel indices beyond the palette are drawn opaque black
/// (as Chrome does; Firefox instead wraps them into the palette); a transparent index beyond
/// the palette is ignored, unless the image has no palette at all. Memory: the canvas, plus one saved rectangle for "restore previous".
public struct Compositor {
    public let width: Int
    public let height: Int
    public let globalPalette: [UInt8]?
    /// The canvas after the last `draw`.
    public private(set) var canvas: RGBAImage

    /// A rectangle clipped to the canvas.
    private struct Rect {
        var x0 = 0, y0 = 0, x1 = 0, y1 = 0
        var isEmpty: Bool { x0 >= x1 || y0 >= y1 }
    }

    /// The disposal of the last image, applied just before the next one is drawn.
    private var pendingDisposal = GIFDisposal.none
    private var pendingRect = Rect()
    /// The pixels under the last image's rectangle before it was drawn, for "restore previous".
    private var saved: [UInt8] = []
    /// Palette index to packed RGBA (little-endian R,G,B,A bytes); 0 means "leave the canvas".
    private var colours = [UInt32](repeating: 0, count: 256)

    public init(width: Int, height: Int, globalPalette: [UInt8]?) {
        self.width = width
        self.height = height
        self.globalPalette = globalPalette
        canvas = RGBAImage(width: width, height: height)
    }

    /// Disposes of the previous image as it asked, then draws `frame`. `decodedPixels` is how
    /// many of its indices the file provided, in stored order (see `GIFDecoder.decodedPixelCount`);
    /// the rest are not drawn.
    public mutating func draw(_ frame: GIFFrame, decodedPixels: Int? = nil) {
        dispose()
        let rect = Rect(x0: min(frame.left, width), y0: min(frame.top, height),
                        x1: min(frame.left + frame.width, width), y1: min(frame.top + frame.height, height))
        if frame.disposal == .previous { copyRect(rect, toSaved: true) }
        pendingDisposal = frame.disposal
        pendingRect = rect
        guard !rect.isEmpty else { return }
        loadColours(for: frame)
        let total = frame.width * frame.height
        let decoded = min(decodedPixels ?? total, total)
        // Only a damaged image needs to know which stored row each display row came from.
        let storedRow: [Int]? = decoded < total ? Self.storedRows(height: frame.height, interlaced: frame.interlaced) : nil
        let (left, top, imageWidth, canvasWidth) = (frame.left, frame.top, frame.width, width)
        canvas.pixels.withUnsafeMutableBytes { raw in
            let canvas = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            frame.indices.withUnsafeBufferPointer { indices in
                colours.withUnsafeBufferPointer { colours in
                    for y in rect.y0..<rect.y1 {
                        let imageRow = y - top
                        var x1 = rect.x1
                        if let storedRow {
                            let available = max(0, min(imageWidth, decoded - storedRow[imageRow] * imageWidth))
                            x1 = min(x1, left + available)
                        }
                        guard rect.x0 < x1 else { continue }
                        let source = imageRow * imageWidth - left
                        let target = y * canvasWidth
                        for x in rect.x0..<x1 {
                            let colour = colours[Int(indices[source + x])]
                            if colour != 0 { canvas[target + x] = colour }
                        }
                    }
                }
            }
        }
    }

    /// The images (by index) that make up each displayed frame, given every image's delay and
    /// whether it has a graphic control extension (`controlled`, all true when empty).
    /// An image with delay 0 is shown together with the images after it, up to and including
    /// the next one with a delay (how encoders tile more than 256 colours into one frame);
    /// zero-delay images at the end form a last frame. When no image has a delay, each image
    /// with a graphic control extension starts a frame of its own (a GIF87a file's images too:
    /// an animation), and images without one join the frame before them: the "many palettes,
    /// one picture" tiles of a GIF89a file with no timing at all are one picture.
    public static func displayedFrames(delays: [Int], controlled: [Bool] = []) -> [Range<Int>] {
        let timed = delays.contains { $0 > 0 }
        var frames: [Range<Int>] = []
        var start = 0
        for index in delays.indices {
            let next = index + 1
            let ends = delays[index] > 0 || (!timed && (next >= controlled.count || controlled[next]))
            if ends && next < delays.count || next == delays.count {
                frames.append(start..<next)
                start = next
            }
        }
        return frames
    }

    // MARK: - Private

    private mutating func dispose() {
        guard !pendingRect.isEmpty else { return }
        switch pendingDisposal {
        case .background: clear(pendingRect)
        case .previous: copyRect(pendingRect, toSaved: false)
        case .none, .unspecified: break
        }
        pendingDisposal = .none
    }

    private mutating func clear(_ rect: Rect) {
        let rowBytes = (rect.x1 - rect.x0) * 4
        let width = self.width
        canvas.pixels.withUnsafeMutableBytes { raw in
            for y in rect.y0..<rect.y1 {
                (raw.baseAddress! + (y * width + rect.x0) * 4).initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes)
            }
        }
    }

    /// Copies the canvas under `rect` into `saved`, or back from it.
    private mutating func copyRect(_ rect: Rect, toSaved: Bool) {
        guard !rect.isEmpty else { return }
        let rowBytes = (rect.x1 - rect.x0) * 4
        let width = self.width
        if saved.count < rowBytes * (rect.y1 - rect.y0) {
            saved = [UInt8](repeating: 0, count: rowBytes * (rect.y1 - rect.y0))
        }
        canvas.pixels.withUnsafeMutableBytes { canvas in
            saved.withUnsafeMutableBytes { saved in
                for (row, y) in (rect.y0..<rect.y1).enumerated() {
                    let onCanvas = canvas.baseAddress! + (y * width + rect.x0) * 4
                    let inSaved = saved.baseAddress! + row * rowBytes
                    if toSaved {
                        inSaved.copyMemory(from: onCanvas, byteCount: rowBytes)
                    } else {
                        onCanvas.copyMemory(from: inSaved, byteCount: rowBytes)
                    }
                }
            }
        }
    }

    private mutating func loadColours(for frame: GIFFrame) {
        let palette = frame.localPalette ?? globalPalette ?? []
        let count = min(palette.count / 3, 256)
        colours.withUnsafeMutableBufferPointer { colours in
            palette.withUnsafeBufferPointer { rgb in
                for i in 0..<count {
                    colours[i] = UInt32(rgb[i * 3]) | UInt32(rgb[i * 3 + 1]) << 8 | UInt32(rgb[i * 3 + 2]) << 16 | 0xFF00_0000
                }
            }
            for i in count..<256 { colours[i] = 0xFF00_0000 }
            // A transparent index beyond the table is ignored, as browsers do, except when there is
            // no table at all: then it is the one colour the image defines.
            if let transparent = frame.transparentIndex, transparent < count || count == 0 { colours[transparent] = 0 }
        }
    }

    /// For each display row of an image, the row of stored data it came from.
    private static func storedRows(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        var stored = [Int](repeating: 0, count: height)
        for (storedIndex, displayRow) in GIFDecoder.interlacedRowOrder(height: height).enumerated() {
            stored[displayRow] = storedIndex
        }
        return stored
    }
}
