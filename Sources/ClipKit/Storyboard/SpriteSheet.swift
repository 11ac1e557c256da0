// One sheet being filled with tiles: an opaque black RGBA canvas that tiles are copied onto, row by row.

/// A sheet of a storyboard under construction. Its canvas is allocated once at the full sheet's
/// size; `finished()` crops it to the rows and columns used, so a last sheet with few tiles is
/// small. Places not covered by a tile (the end of the last row) are opaque black.
struct SpriteSheet {
    let layout: StoryboardLayout
    /// Tiles placed so far.
    private(set) var count = 0
    private var canvas: RGBAImage

    init(layout: StoryboardLayout) {
        self.layout = layout
        let size = layout.fullSheetSize
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for i in stride(from: 3, to: buffer.count, by: 4) { buffer[i] = 255 }
        }
        canvas = RGBAImage(width: size.width, height: size.height, pixels: pixels)
    }

    var isFull: Bool { count == layout.tilesPerSheet }

    /// Copies `tile` (the layout's tile size) to the next place; returns its top-left pixel.
    mutating func place(_ tile: RGBAImage) -> (x: Int, y: Int) {
        precondition(!isFull && tile.width == layout.tileWidth && tile.height == layout.tileHeight, "tile does not fit the sheet")
        let (_, x, y) = layout.position(ofTile: count)
        let rowBytes = tile.width * 4, canvasWidth = canvas.width
        tile.pixels.withUnsafeBufferPointer { source in
            canvas.pixels.withUnsafeMutableBufferPointer { target in
                for row in 0..<tile.height {
                    let from = source.baseAddress! + row * rowBytes
                    let to = target.baseAddress! + ((y + row) * canvasWidth + x) * 4
                    to.update(from: from, count: rowBytes)
                }
            }
        }
        count += 1
        return (x, y)
    }

    /// The sheet's picture, cropped to the tiles placed.
    func finished() -> RGBAImage {
        let size = layout.sheetSize(tiles: count)
        if size == (canvas.width, canvas.height) { return canvas }
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        let rowBytes = size.width * 4, canvasRowBytes = canvas.width * 4
        canvas.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for row in 0..<size.height {
                    (target.baseAddress! + row * rowBytes).update(from: source.baseAddress! + row * canvasRowBytes, count: rowBytes)
                }
            }
        }
        return RGBAImage(width: size.width, height: size.height, pixels: pixels)
    }
}
