// Sizes on the command line: plain bytes or a number with a unit (500KB, 5MB, 2MiB).
import ClipKit

enum ByteSize {
    /// Units as people write them: decimal (KB = 1000) and binary (KiB = 1024); case does not matter.
    static let units: [String: Double] = [
        "": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
        "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824,
    ]

    /// Bytes for `text`; a usage error naming `option` unless it is a size over 0 (at most 1 TB).
    static func parse(_ text: String, option: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let value = Double(number), let scale = units[unit], value.isFinite else {
            throw ClipKitError.invalidOption(name: option, reason: "'\(text)' is not a size such as 500000, 500KB, 5MB or 2MiB")
        }
        let bytes = (value * scale).rounded(.down)
        guard bytes >= 1, bytes <= 1e12 else {
            throw ClipKitError.invalidOption(name: option, reason: "must be 1 byte to 1 TB, got '\(text)'")
        }
        return Int(bytes)
    }
}
