// storyboard.json: the tiles, their times and places, the sheet files and the tile size of a storyboard directory.
import Foundation

/// The manifest `clipkit storyboard` writes beside the sheets and the WebVTT file.
public struct StoryboardManifest: Codable, Equatable, Sendable {
    public struct Size: Codable, Equatable, Sendable {
        public var width: Int
        public var height: Int
    }

    /// One sheet file and how many tiles it holds.
    public struct Sheet: Codable, Equatable, Sendable {
        /// The file name, in the manifest's directory.
        public var file: String
        public var width: Int
        public var height: Int
        public var tiles: Int
    }

    /// One tile: its cue's time range, the source frame it shows, and where it is.
    public struct Tile: Codable, Equatable, Sendable {
        /// The cue's start, in milliseconds from the start of the clip.
        public var startMs: Int
        /// The cue's end: the next tile's start, or the end of the clip.
        public var endMs: Int
        /// The presentation time of the source frame shown, in milliseconds from the stream start.
        public var frameMs: Int
        /// Index into `sheets`.
        public var sheet: Int
        /// The tile's top-left pixel on its sheet (its size is `tile`).
        public var x: Int
        public var y: Int

        enum CodingKeys: String, CodingKey {
            case startMs = "start_ms", endMs = "end_ms", frameMs = "frame_ms", sheet, x, y
        }
    }

    /// What wrote the manifest: `clipkit-storyboard/1`. A directory is replaced by a later run
    /// only when its manifest holds this mark.
    public var format: String?
    /// The `Fingerprint` of the input and options the storyboard was made from, when recorded.
    public var fingerprint: String?
    /// The input's file name (not UTF-8: `FileSystemPath`'s lossless form; the JSON text holds
    /// its readable form and `source_bytes`, as frames.json does).
    public var source: String
    /// Where the last cue ends.
    public var durationMs: Int
    /// Seconds between tile times.
    public var interval: Double
    /// Whether tiles show the nearest keyframe (`--keyframes`) rather than the frame at their time.
    public var keyframes: Bool
    public var tile: Size
    /// Tiles per row, and most tiles on one sheet.
    public var columns: Int
    public var tilesPerSheet: Int
    /// The sheets' file extension: `jpg`, `webp` or `png`.
    public var imageFormat: String
    /// The WebVTT file's name.
    public var vtt: String
    public var sheets: [Sheet]
    public var tiles: [Tile]

    /// The manifest's file name in a storyboard directory.
    public static let fileName = "storyboard.json"
    /// The WebVTT file's name in a storyboard directory.
    public static let vttName = "storyboard.vtt"
    /// The `format` clipkit writes.
    public static let currentFormat = "clipkit-storyboard/1"
    /// Largest storyboard.json read.
    static let maxBytes = 64 << 20

    enum CodingKeys: String, CodingKey {
        case format, fingerprint, source
        case durationMs = "duration_ms"
        case interval, keyframes, tile, columns
        case tilesPerSheet = "tiles_per_sheet"
        case imageFormat = "image_format"
        case vtt, sheets, tiles
    }

    /// Every file of the storyboard directory, this manifest included.
    public var files: [String] { sheets.map(\.file) + [vtt, Self.fileName] }

    /// The manifest as JSON text: keys in a fixed order, one line per sheet and per tile, so the
    /// same storyboard always gives the same bytes.
    public func jsonText() -> String {
        let quoted = FramesManifest.quoted
        var lines = ["{"]
        if let format { lines.append("  \"format\": \(quoted(format)),") }
        if let fingerprint { lines.append("  \"fingerprint\": \(quoted(fingerprint)),") }
        lines.append(contentsOf: FramesManifest.sourceLines(source))
        lines.append("  \"duration_ms\": \(durationMs),")
        lines.append("  \"interval\": \(interval),")
        lines.append("  \"keyframes\": \(keyframes),")
        lines.append("  \"tile\": { \"width\": \(tile.width), \"height\": \(tile.height) },")
        lines.append("  \"columns\": \(columns),")
        lines.append("  \"tiles_per_sheet\": \(tilesPerSheet),")
        lines.append("  \"image_format\": \(quoted(imageFormat)),")
        lines.append("  \"vtt\": \(quoted(vtt)),")
        lines.append("  \"sheets\": [")
        for (i, sheet) in sheets.enumerated() {
            lines.append("    { \"file\": \(quoted(sheet.file)), \"width\": \(sheet.width), \"height\": \(sheet.height), \"tiles\": \(sheet.tiles) }"
                         + (i + 1 < sheets.count ? "," : ""))
        }
        lines.append("  ],")
        lines.append("  \"tiles\": [")
        for (i, tile) in tiles.enumerated() {
            lines.append("    { \"start_ms\": \(tile.startMs), \"end_ms\": \(tile.endMs), \"frame_ms\": \(tile.frameMs), "
                         + "\"sheet\": \(tile.sheet), \"x\": \(tile.x), \"y\": \(tile.y) }" + (i + 1 < tiles.count ? "," : ""))
        }
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads and checks a manifest: file names are plain names of regular files beside it,
    /// cues follow each other without gaps, tiles lie inside their sheets.
    public static func read(from url: URL) throws -> StoryboardManifest {
        let path = url.path
        try InputFile.check(path)
        guard let handle = FileSystemPath.handleForReading(path) else {
            throw ClipKitError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        if data.count > maxBytes {
            throw ClipKitError.limitExceeded(path: path, what: "manifest size", limit: "\(maxBytes) bytes", option: "a smaller manifest")
        }
        let manifest: StoryboardManifest
        do {
            manifest = try JSONDecoder().decode(StoryboardManifest.self, from: data)
        } catch let error as DecodingError {
            throw ClipKitError.corrupt(path: path, reason: "not a storyboard manifest: \(FramesManifest.describe(error))")
        } catch {
            throw ClipKitError.corrupt(path: path, reason: "not a storyboard manifest: \(error)")
        }
        try manifest.validate(path: path, directory: url.deletingLastPathComponent())
        return manifest
    }

    /// The fingerprint recorded by the clipkit manifest in `directory`, when the manifest is
    /// whole and every file it lists is there.
    static func recordedFingerprint(in directory: URL) -> Fingerprint? {
        guard let manifest = try? read(from: directory.appendingPathComponent(fileName)),
              manifest.format == currentFormat, let text = manifest.fingerprint else { return nil }
        return Fingerprint(recorded: text)
    }

    private func validate(path: String, directory: URL) throws {
        func bad(_ reason: String) -> ClipKitError { .corrupt(path: path, reason: reason) }
        guard tile.width > 0, tile.height > 0, columns > 0, tilesPerSheet > 0 else { throw bad("tile size, columns and tiles_per_sheet must be positive") }
        guard !sheets.isEmpty, !tiles.isEmpty else { throw bad("no sheets or no tiles listed") }
        for name in sheets.map(\.file) + [vtt] {
            guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", name != Self.fileName else {
                throw bad("'\(name)' must be a file name in the manifest's directory")
            }
            var info = stat()
            let file = directory.appendingPathComponent(name).path
            guard lstat(FileSystemPath.cString(file), &info) == 0 else { throw bad("\(name) is listed but \(file) does not exist") }
            guard info.st_mode & S_IFMT == S_IFREG else { throw bad("\(file) is not a regular file") }
        }
        guard Set(sheets.map(\.file)).count == sheets.count else { throw bad("a sheet is listed twice") }
        var expectedStart = 0
        for (i, tile) in tiles.enumerated() {
            guard tile.startMs == expectedStart, tile.endMs > tile.startMs else {
                throw bad("tile \(i): cue \(tile.startMs)-\(tile.endMs) ms does not follow the previous one")
            }
            expectedStart = tile.endMs
            guard sheets.indices.contains(tile.sheet) else { throw bad("tile \(i): no sheet \(tile.sheet)") }
            let sheet = sheets[tile.sheet]
            guard tile.x >= 0, tile.y >= 0, tile.x + self.tile.width <= sheet.width, tile.y + self.tile.height <= sheet.height else {
                throw bad("tile \(i) lies outside \(sheet.file)")
            }
        }
        guard expectedStart == durationMs else { throw bad("the last cue ends at \(expectedStart) ms, not duration_ms \(durationMs)") }
    }
}
