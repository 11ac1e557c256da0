// What a storyboard holds: when tiles are taken, their size, how sheets are laid out and written, limits.

/// When storyboard tiles are taken.
public enum TileSpacing: Sendable, Equatable {
    /// Every whole number of seconds, as few as give at most 100 tiles:
    /// `max(1, ceil(duration / 100))` seconds.
    case automatic
    /// Every this many seconds (at least 0.001).
    case interval(Double)
    /// This many tiles, evenly spread over the duration.
    case count(Int)

    /// Most tiles `automatic` gives.
    public static let automaticMaximum = 100
}

/// What `Storyboarder` makes of a video and how.
public struct StoryboardOptions: Sendable {
    /// When tiles are taken. Tile *i* shows the frame on screen at its time (`keyframesOnly`: the
    /// nearest keyframe); its cue lasts until the next tile's time, the last one's until the end.
    public var spacing: TileSpacing = .automatic
    /// The size of each tile, applied to the upright picture at its display aspect ratio; never
    /// larger than the source (a larger size gives tiles at the source's size). Default 160 px
    /// wide, the height from the aspect ratio.
    public var tileSize: FrameSize = .width(160)
    /// Tiles per row of a sheet.
    public var columns = 10
    /// Most tiles on one sheet; more tiles go on further sheets. Sheets have fewer rows where
    /// full ones would be taller than the format allows (`StoryboardLayout.fitting`).
    public var tilesPerSheet = 100
    /// The sheets' file format.
    public var format: StillImageFormat = .jpeg
    /// JPEG and WebP quality, 1 (smallest) to 100 (best); PNG is lossless.
    public var quality = 80
    /// Decode keyframes only and show, for each tile, the keyframe nearest its time: much less
    /// decoding for long videos, tiles up to half a keyframe interval off.
    public var keyframesOnly = false
    /// Replace an existing output directory that an earlier storyboard wrote (and holds nothing else).
    public var force = false
    /// Pixels, frames (tiles), memory, output bytes and time allowed for one input.
    public var limits = Limits()
    /// The fingerprint `storyboard.json` records; nil records none.
    public var fingerprint: FingerprintSource?

    public init(spacing: TileSpacing = .automatic, tileSize: FrameSize = .width(160), format: StillImageFormat = .jpeg,
                keyframesOnly: Bool = false) {
        self.spacing = spacing
        self.tileSize = tileSize
        self.format = format
        self.keyframesOnly = keyframesOnly
    }

    /// The options that shape the output, in a fixed text form: a `Fingerprint`'s options.
    public var fingerprintOptions: String {
        let when: String
        switch spacing {
        case .automatic: when = "auto"
        case .interval(let seconds): when = "interval:\(seconds)"
        case .count(let count): when = "count:\(count)"
        }
        return "storyboard spacing=\(when) tile=\(tileSize.key) columns=\(columns) per-sheet=\(tilesPerSheet) "
            + "format=\(format.rawValue) quality=\(format == .png ? 0 : quality) keyframes=\(keyframesOnly)"
    }

    /// Throws `invalidOption` (a usage error) for values that cannot work.
    public func validate() throws {
        switch spacing {
        case .automatic: break
        case .interval(let seconds):
            guard seconds >= 0.001, seconds <= 1e9 else {
                throw ClipKitError.invalidOption(name: "--interval", reason: "must be from 0.001 to 1000000000 seconds, got \(seconds)")
            }
        case .count(let count):
            guard count >= 1 else { throw ClipKitError.invalidOption(name: "--count", reason: "must be at least 1, got \(count)") }
        }
        switch tileSize {
        case .width(let w), .height(let w):
            guard (1...65535).contains(w) else { throw ClipKitError.invalidOption(name: "--tile", reason: "sides must be 1 to 65535 pixels") }
        case .fit(let w, let h), .exact(let w, let h):
            guard (1...65535).contains(w), (1...65535).contains(h) else {
                throw ClipKitError.invalidOption(name: "--tile", reason: "sides must be 1 to 65535 pixels")
            }
        case .original: break
        }
        guard (1...65535).contains(columns) else { throw ClipKitError.invalidOption(name: "--columns", reason: "must be 1 to 65535, got \(columns)") }
        guard tilesPerSheet >= 1 else { throw ClipKitError.invalidOption(name: "--max-sheet", reason: "must be at least 1, got \(tilesPerSheet)") }
        guard (1...100).contains(quality) else { throw ClipKitError.invalidOption(name: "--quality", reason: "must be 1 to 100, got \(quality)") }
    }
}
