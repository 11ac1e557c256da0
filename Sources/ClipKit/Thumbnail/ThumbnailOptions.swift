// What a thumbnail is: where it is taken (a position, or the best frames), its size, and the limits of one input.
import Foundation

/// Where in the clip the thumbnail is taken.
public enum ThumbnailPosition: Sendable, Equatable {
    /// The first frame.
    case first
    /// The frame on screen at this many seconds from the start.
    case seconds(Double)
    /// The frame on screen at this fraction (0...1) of the duration.
    case fraction(Double)
}

/// How the frame of a thumbnail is chosen.
public enum ThumbnailPick: String, Sendable, Equatable, CaseIterable {
    /// The frame at `ThumbnailOptions.position` (the first frame by default), optionally the first
    /// non-blank one after it (`skipBlankWithin`).
    case first
    /// The frames that score best as posters (`PosterPicker`): not blank, sharp, detailed,
    /// colourful and away from fades and cuts. `position` must stay `.first`.
    case best
}

/// Where a thumbnail is taken, its size, black-frame skipping and the limits of one input.
public struct ThumbnailOptions: Sendable {
    public var position: ThumbnailPosition = .first
    public var size: FrameSize = .fit(width: 320, height: 320)
    /// Take the first frame that is not almost uniformly black or white, looking this far
    /// (seconds) from the position; nil takes the frame at the position as it is.
    public var skipBlankWithin: Double?
    /// `.first` takes the frame at `position`; `.best` scores frames across the clip and takes
    /// the best (`PosterPicker`).
    public var pick: ThumbnailPick = .first
    /// With `pick == .best`: how many posters, best first, each visually distinct from the
    /// others and spread across the clip (1...`ThumbnailOptions.maxCount`). More than one are
    /// written as NAME-1.png ... NAME-N.png (`outputs(for:)`).
    public var count = 1
    /// With `pick == .best`: search only the first this many seconds; nil searches the whole clip.
    public var within: Double?
    /// The file format: PNG (RGB, or RGBA where a pixel is transparent), or JPEG (JFIF, 4:2:0,
    /// quality `jpegQuality`; alpha is dropped, as ffmpeg drops it), as ffmpegthumbnailer and
    /// ffmpeg write for a name ending .jpg.
    public var format: StillImageFormat = .png
    /// The JPEG quality (libavcodec's mjpeg quantiser 4): thumbnails are small, and the one
    /// picture a page shows first.
    public static let jpegQuality = 94

    /// Pixels and time allowed for one input.
    public var limits = Limits()
    /// The fingerprint the PNG records (a `tEXt` chunk); nil records none.
    public var fingerprint: FingerprintSource?

    /// The most posters one input may ask for.
    public static let maxCount = 100

    /// The options that shape the thumbnail, in a fixed text form: a `Fingerprint`'s options.
    /// Limits are not among them: they decide whether a thumbnail is made, not how it looks.
    /// The pick appears only when it is not the default, so existing outputs stay up to date.
    public var fingerprintOptions: String {
        let at: String
        switch position {
        case .first: at = "first"
        case .seconds(let seconds): at = "s:\(seconds)"
        case .fraction(let fraction): at = "f:\(fraction)"
        }
        var text = "thumb at=\(at) size=\(size.key) skip-blank=\(skipBlankWithin.map { "\($0)" } ?? "off")"
        if pick == .best {
            text += " pick=best:\(PosterPicker.version) count=\(count) within=\(within.map { "\($0)" } ?? "all")"
        }
        if format != .png { text += " format=\(format.rawValue) quality=\(Self.jpegQuality)" }
        return text
    }

    public init(position: ThumbnailPosition = .first, size: FrameSize = .fit(width: 320, height: 320),
                skipBlankWithin: Double? = nil, pick: ThumbnailPick = .first, count: Int = 1, within: Double? = nil) {
        self.position = position
        self.size = size
        self.skipBlankWithin = skipBlankWithin
        self.pick = pick
        self.count = count
        self.within = within
    }

    /// The files a thumbnail written to `destination` goes to: `destination` itself, or with
    /// `count` over 1 (and `pick == .best`) NAME-1.png ... NAME-N.png beside it, best first.
    /// A clip with fewer distinct frames than `count` fills only the first names.
    public func outputs(for destination: URL) -> [URL] {
        guard pick == .best, count > 1 else { return [destination] }
        let directory = destination.deletingLastPathComponent()
        let stem = destination.deletingPathExtension().lastPathComponent
        let suffix = destination.pathExtension.isEmpty ? "" : "." + destination.pathExtension
        return (1...count).map { directory.appendingPathComponent("\(stem)-\($0)\(suffix)") }
    }

    /// Throws `invalidOption` (a usage error) for combinations and values that cannot work.
    public func validate() throws {
        guard format != .webp else { throw ClipKitError.invalidOption(name: "-o", reason: "thumbnails are PNG or JPEG (.png, .jpg)") }
        guard pick == .best else {
            if count != 1 {
                throw ClipKitError.invalidOption(name: "--count", reason: "needs --pick best (several posters are the best frames)")
            }
            if within != nil {
                throw ClipKitError.invalidOption(name: "--within", reason: "needs --pick best (it limits where the best frame is looked for)")
            }
            return
        }
        if position != .first {
            throw ClipKitError.invalidOption(name: "--at", reason: "cannot be combined with --pick best (use --within to limit the search)")
        }
        guard (1...Self.maxCount).contains(count) else {
            throw ClipKitError.invalidOption(name: "--count", reason: "must be 1 to \(Self.maxCount), got \(count)")
        }
        if let within, !(within > 0 && within.isFinite) {
            throw ClipKitError.invalidOption(name: "--within", reason: "must be more than 0 seconds")
        }
    }
}
