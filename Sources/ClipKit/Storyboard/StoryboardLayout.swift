// Where each tile goes: sheets of a fixed number of columns, filled row by row from the top left.

/// The geometry of a storyboard's sheets. Tile *i* is on sheet `i / tilesPerSheet`, in row-major
/// order there; a sheet is as wide as its widest row and as tall as its rows, so a last sheet
/// with few tiles is smaller (never padded with empty rows).
public struct StoryboardLayout: Sendable, Equatable {
    public var tileWidth: Int
    public var tileHeight: Int
    /// Tiles per row.
    public var columns: Int
    /// Most tiles on one sheet.
    public var tilesPerSheet: Int

    public init(tileWidth: Int, tileHeight: Int, columns: Int, tilesPerSheet: Int) {
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.columns = max(1, min(columns, tilesPerSheet))
        self.tilesPerSheet = max(1, tilesPerSheet)
    }

    /// Rows of a full sheet.
    public var rowsPerSheet: Int { (tilesPerSheet + columns - 1) / columns }

    /// Sheets needed for `tiles` tiles.
    public func sheetCount(tiles: Int) -> Int { (tiles + tilesPerSheet - 1) / tilesPerSheet }

    /// The sheet of tile `index` and the tile's top-left pixel on it.
    public func position(ofTile index: Int) -> (sheet: Int, x: Int, y: Int) {
        let slot = index % tilesPerSheet
        return (index / tilesPerSheet, (slot % columns) * tileWidth, (slot / columns) * tileHeight)
    }

    /// The pixel size of a sheet holding `tiles` tiles.
    public func sheetSize(tiles: Int) -> (width: Int, height: Int) {
        let count = min(max(tiles, 1), tilesPerSheet)
        return (min(count, columns) * tileWidth, ((count + columns - 1) / columns) * tileHeight)
    }

    /// The pixel size of a full sheet (the largest any sheet gets).
    public var fullSheetSize: (width: Int, height: Int) { sheetSize(tiles: tilesPerSheet) }

    /// The layout with `columns` to a row and at most `tilesPerSheet` to a sheet whose sheets
    /// are at most `maxDimension` pixels on either side (an image format's limit): fewer rows to
    /// a sheet where full ones would be taller. A tall picture's 160 px wide tiles can be
    /// thousands of pixels tall, and ten rows of them more than any JPEG. Nil when not even one
    /// row fits: a tile, or a row of `columns`, larger than that.
    public static func fitting(tileWidth: Int, tileHeight: Int, columns: Int, tilesPerSheet: Int,
                               maxDimension: Int) -> StoryboardLayout? {
        var layout = StoryboardLayout(tileWidth: tileWidth, tileHeight: tileHeight, columns: columns, tilesPerSheet: tilesPerSheet)
        guard tileHeight <= maxDimension, layout.columns * tileWidth <= maxDimension else { return nil }
        let rows = min(layout.rowsPerSheet, maxDimension / tileHeight)
        layout.tilesPerSheet = min(layout.tilesPerSheet, rows * layout.columns)
        return layout
    }
}
