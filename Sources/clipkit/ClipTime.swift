// Parses the time and size values users type: 2.5, 01:02.5, 1:02:03, 10%, 320x240.
import ClipKit

enum ClipTime {
    static let maxSeconds = 1e9

    /// Seconds from `2.5`, `mm:ss[.ms]` or `hh:mm:ss[.ms]`.
    static func seconds(_ text: String, option: String) throws -> Double {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw invalid(text, option) }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0, value.isFinite, !part.contains("e"), !part.contains("E") else {
                throw invalid(text, option)
            }
            if i < parts.count - 1 && (value != value.rounded() || part.contains(".")) { throw invalid(text, option) }
            if i > 0 && value >= 60 { throw invalid(text, option) }
            total = total * 60 + value
        }
        // Past 31 years is no clip time; it would only overflow timestamp arithmetic later.
        guard total <= ClipTime.maxSeconds else {
            throw ClipKitError.invalidOption(name: option, reason: "'\(text)' is more than \(Int(ClipTime.maxSeconds)) seconds")
        }
        return total
    }

    /// A position: seconds as above, or a percentage of the duration (`10%`).
    static func position(_ text: String, option: String) throws -> ThumbnailPosition {
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), (0...100).contains(percent) else {
                throw ClipKitError.invalidOption(name: option, reason: "'\(text)' is not a percentage from 0% to 100%")
            }
            return .fraction(percent / 100)
        }
        return .seconds(try seconds(text, option: option))
    }

    private static func invalid(_ text: String, _ option: String) -> ClipKitError {
        .invalidOption(name: option, reason: "'\(text)' is not a time; use seconds (2.5) or [hh:]mm:ss[.ms]")
    }
}

extension FrameSize {
    /// The size from `--size WxH` (or `0` for the original), `--width W` or `--height H`;
    /// `fallback` when none is given.
    static func from(size: String?, width: Int?, height: Int?, fallback: FrameSize) throws -> FrameSize {
        let given = [size != nil, width != nil, height != nil].filter { $0 }.count
        if given > 1 {
            throw ClipKitError.invalidOption(name: "--size", reason: "give only one of --size, --width and --height")
        }
        if let width {
            guard width > 0 && width <= 65535 else { throw ClipKitError.invalidOption(name: "--width", reason: "must be 1 to 65535 pixels") }
            return .width(width)
        }
        if let height {
            guard height > 0 && height <= 65535 else { throw ClipKitError.invalidOption(name: "--height", reason: "must be 1 to 65535 pixels") }
            return .height(height)
        }
        guard let size else { return fallback }
        if size == "0" { return .original }
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 65535, h <= 65535 else {
            throw ClipKitError.invalidOption(name: "--size", reason: "'\(size)' is not WxH (e.g. 320x240) or 0 for the original size")
        }
        return .fit(width: w, height: h)
    }
}
