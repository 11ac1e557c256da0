// Whether a text is JSON by RFC 8259's grammar: Foundation's reader takes more, and report.json splices in only what every reader takes.
import Foundation

extension JSONText {
    /// True when `text` is one JSON value by RFC 8259, with only JSON whitespace around it.
    /// `JSONSerialization` also reads a comma before `}` or `]` and skips a byte-order mark at
    /// the start; a run's line it read that way, spliced into report.json as it was, made
    /// report.json unreadable (`python3 -m json.tool` refused it, and so did the next run's
    /// `--baseline` when the mark was inside the file). See `RunLine.json`.
    static func isStrict(_ text: String) -> Bool {
        var reader = StrictJSONReader(bytes: Array(text.utf8))
        return reader.value(depth: 0) && reader.isAtEnd()
    }
}

/// A recursive-descent check of the grammar (nothing is built). Depth is capped, as
/// `JSONSerialization`'s is, so a line cannot exhaust the stack.
private struct StrictJSONReader {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 512

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func isAtEnd() -> Bool {
        skipSpace()
        return index == bytes.count
    }

    mutating func value(depth: Int) -> Bool {
        skipSpace()
        guard let byte = next, depth < Self.maxDepth else { return false }
        switch byte {
        case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), isObject: true, depth: depth)
        case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), isObject: false, depth: depth)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    /// An object or array after its opening bracket: members (or elements) separated by commas,
    /// none after the last.
    private mutating func container(close: UInt8, isObject: Bool, depth: Int) -> Bool {
        index += 1
        skipSpace()
        if next == close { index += 1; return true }
        while true {
            if isObject {
                skipSpace()
                guard next == UInt8(ascii: "\""), string() else { return false }
                skipSpace()
                guard next == UInt8(ascii: ":") else { return false }
                index += 1
            }
            guard value(depth: depth + 1) else { return false }
            skipSpace()
            guard let separator = next else { return false }
            index += 1
            if separator == close { return true }
            if separator != UInt8(ascii: ",") { return false }
        }
    }

    /// A string from its opening quote: no raw control character, only JSON's escapes.
    private mutating func string() -> Bool {
        index += 1
        while let byte = next {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard let escape = next else { return false }
                index += 1
                if escape == UInt8(ascii: "u") {
                    guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy({ $0.isHexDigit }) else { return false }
                    index += 4
                } else if !"\"\\/bfnrt".utf8.contains(escape) {
                    return false
                }
            case 0..<0x20: return false
            default: continue
            }
        }
        return false
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() -> Bool {
        if next == UInt8(ascii: "-") { index += 1 }
        if next == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { return false }
        if next == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            index += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = next, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: String) -> Bool {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else { return false }
        index += expected.count
        return true
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
