// What the viewer sees, as the quantiser follows it from the writer's reports (lossy LZW).

/// The quantiser's copy of what the viewer sees under lossy LZW, brought up to date from the
/// writer's `ShownReport`s. The image the writer is encoding comes in by bands, so the next
/// frame is dithered row by row as the rows it reads become final (`following`): the dithering
/// of one frame overlaps the writing of the one before, instead of waiting for all of it. The
/// pictures are the same as when each image was waited for whole.
struct ShownFollower {
    let reports: BoundedQueue<ShownReport>
    /// RGB per canvas pixel; nil while not known.
    private(set) var canvas: [UInt8]?
    private var canvasWidth = 0
    private var canvasHeight = 0
    /// The image handed to the writer whose reports are not all in: its rectangle, and how many
    /// of its rows have come (0 or 1 images: the quantiser hands on the next only after `catchUp()`).
    private var pending: (rect: PixelRect, rows: Int)?

    init(reports: BoundedQueue<ShownReport>) {
        self.reports = reports
    }

    /// Whether what the viewer sees is known for a canvas of `width` x `height` (or will be,
    /// as the reports of the image pending come in).
    func knows(width: Int, height: Int) -> Bool {
        canvas != nil && width == canvasWidth && height == canvasHeight
    }

    /// An image of `rect` was handed to the writer, on a canvas of `width` x `height`: its
    /// reports are to come. A canvas not known becomes known from an `opaque` image (no
    /// transparent index) that covers it, as the GIF encoder starts following it.
    mutating func expect(_ rect: PixelRect, opaque: Bool, width: Int, height: Int) {
        catchUp()
        if canvas == nil || width != canvasWidth || height != canvasHeight {
            let covers = opaque && rect.x == 0 && rect.y == 0 && rect.width == width && rect.height == height
            canvas = covers ? [UInt8](repeating: 0, count: width * height * 3) : nil
            (canvasWidth, canvasHeight) = (width, height)
        }
        pending = (rect, 0)
    }

    /// Takes the reports of the image pending until it is written (waiting for the writer).
    mutating func catchUp() {
        guard pending != nil else { return }
        var (pending, lost) = (self.pending, false)
        let (reports, width, height) = (self.reports, canvasWidth, canvasHeight)
        if canvas == nil {
            Self.take(&pending, &lost, through: nil, from: reports, into: nil, width: width, height: height)
        } else {
            canvas!.withUnsafeMutableBufferPointer {
                Self.take(&pending, &lost, through: nil, from: reports, into: $0, width: width, height: height)
            }
        }
        self.pending = pending
        if lost { canvas = nil }
    }

    /// `body` with the canvas (which must be known: `knows`) and a function that brings its row
    /// `y` up to date, waiting for the writer's reports as needed. After it the canvas is as
    /// far along as `body` asked (`catchUp()` takes the rest).
    mutating func following<Result>(_ body: (UnsafeBufferPointer<UInt8>, (Int) -> Void) -> Result) -> Result {
        var (pending, lost) = (self.pending, false)
        let (reports, width, height) = (self.reports, canvasWidth, canvasHeight)
        let result = canvas!.withUnsafeMutableBufferPointer { pixels in
            body(UnsafeBufferPointer(pixels)) { y in
                Self.take(&pending, &lost, through: y, from: reports, into: pixels, width: width, height: height)
            }
        }
        self.pending = pending
        // (An image the writer stopped following mid-way: the frame being dithered kept against
        // its rows reported so far and, below them, what was shown before it; nothing is kept
        // after this frame. clipkit's own frames never get there: the first covers the canvas
        // opaque, and none is cleared or falls outside it.)
        if lost { canvas = nil }
        return result
    }

    /// Takes reports of the image `pending` until its row `y` is in (every row when nil),
    /// copying them into `pixels`. `lost`: the writer stopped following the canvas, or the run
    /// is stopping (the queue cancelled), or a report did not fit the canvas.
    private static func take(_ pending: inout (rect: PixelRect, rows: Int)?, _ lost: inout Bool, through y: Int?,
                             from reports: BoundedQueue<ShownReport>, into pixels: UnsafeMutableBufferPointer<UInt8>?,
                             width: Int, height: Int) {
        while let (rect, rows) = pending {
            if let y, y < rect.y + rows || y >= rect.y + rect.height { return }
            switch (try? reports.pop()) ?? nil {
            case .rows(let band, let bytes):
                guard band.x >= 0, band.y >= 0, band.x + band.width <= width, band.y + band.height <= height,
                      bytes.count == band.width * band.height * 3 else {
                    lost = true
                    continue
                }
                if let pixels {
                    // Row by row into the canvas (the band checked to lie within it).
                    let rowBytes = band.width * 3
                    for row in 0..<band.height {
                        let to = ((band.y + row) * width + band.x) * 3, from = row * rowBytes
                        _ = UnsafeMutableBufferPointer(rebasing: pixels[to..<to + rowBytes])
                            .update(fromContentsOf: bytes[from..<from + rowBytes])
                    }
                }
                pending = (rect, max(rows, band.y + band.height - rect.y))
            case .done:
                pending = nil
            case .unknown, nil:
                (pending, lost) = (nil, true)
            }
        }
    }
}
