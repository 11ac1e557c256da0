// Writes a storyboard's sheets one at a time: fills a sprite sheet with tiles, encodes and writes it when full.
import Foundation

/// Takes tiles in order and writes `sheet_N.EXT` files into a directory, holding one sheet at a
/// time: a sheet is encoded and written as soon as it is full (the last one by `finish()`).
/// Sheets are numbered from 0, zero-padded to the width of the last planned number
/// (`sheet_00` ... `sheet_11` for twelve sheets).
struct SpriteSheetWriter {
    let layout: StoryboardLayout
    let format: StillImageFormat
    /// The sheets written so far.
    private(set) var sheets: [StoryboardManifest.Sheet] = []
    /// Bytes written so far.
    private(set) var bytes = 0
    private let encoder: StillEncoder?
    private let directory: URL
    private let budget: ByteBudget
    private let digits: Int
    private let path: String
    private var sheet: SpriteSheet?
    private var added = 0

    /// Sheets for `plannedTiles` tiles (which names their numbers' width) into `directory`;
    /// `encoder` writes JPEG and WebP (nil for PNG); `path` (the input) names errors.
    init(layout: StoryboardLayout, format: StillImageFormat, encoder: StillEncoder?, plannedTiles: Int,
         directory: URL, budget: ByteBudget, path: String) {
        self.layout = layout
        self.format = format
        self.encoder = encoder
        self.directory = directory
        self.budget = budget
        self.path = path
        digits = String(max(layout.sheetCount(tiles: plannedTiles) - 1, 0)).count
    }

    /// The name of sheet `index`.
    static func fileName(_ index: Int, digits: Int, format: StillImageFormat) -> String {
        let number = String(index)
        return "sheet_" + String(repeating: "0", count: max(0, digits - number.count)) + number + "." + format.fileExtension
    }

    /// Places the next tile; returns its sheet and top-left pixel there. Writes the sheet when full.
    mutating func add(_ tile: RGBAImage) throws -> (sheet: Int, x: Int, y: Int) {
        var current = sheet ?? SpriteSheet(layout: layout)
        sheet = nil
        let (x, y) = current.place(tile)
        let index = added / layout.tilesPerSheet
        added += 1
        if current.isFull {
            try write(current, index: index)
        } else {
            sheet = current
        }
        return (index, x, y)
    }

    /// Writes the last, partly filled sheet.
    mutating func finish() throws {
        guard let current = sheet, current.count > 0 else { return }
        sheet = nil
        try write(current, index: sheets.count)
    }

    private mutating func write(_ sheet: SpriteSheet, index: Int) throws {
        let image = sheet.finished()
        let name = Self.fileName(index, digits: digits, format: format)
        let url = directory.appendingPathComponent(name)
        let data: [UInt8]
        if let encoder {
            data = try encoder.encode(image, path: path)
        } else {
            data = try PNGWriter.encode(image, channels: image.isOpaque ? .rgb : .rgba, filter: .sub)
        }
        try AtomicFile.write(data, to: url, budget: budget)
        bytes += data.count
        sheets.append(StoryboardManifest.Sheet(file: name, width: image.width, height: image.height, tiles: sheet.count))
    }
}
