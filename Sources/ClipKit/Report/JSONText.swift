// A small JSON writer for the report: keys in code-point order, compact or indented, and pre-written JSON embedded as it is.
import Foundation

/// `JSONSerialization` with `.sortedKeys` compares keys with a locale collator on Linux, which
/// made serializing a 1,000-clip report most of its run time; this writer sorts with `<` (the
/// same order every run and every machine) and writes numbers the way `JSONSerialization`
/// parsed them (integers as integers, `true`/`false` as booleans).
enum JSONText {
    /// JSON text written elsewhere (a run's line as read), placed in the output unchanged.
    struct Raw {
        var text: String
    }

    /// `value`: what `JSONSerialization.jsonObject` returns, Swift `Int`/`Double`/`Bool`/`String`,
    /// arrays, `[String: Any]`, `NSNull`, `Raw`. `indent`: nil for one line, else spaces per level.
    static func write(_ value: Any, indent: Int? = nil) -> String {
        var out = ""
        write(value, into: &out, indent: indent, level: 0)
        return out
    }

    private static func write(_ value: Any, into out: inout String, indent: Int?, level: Int) {
        switch value {
        case let string as String:
            writeString(string, into: &out)
        case let raw as Raw:
            out += raw.text
        case let number as NSNumber:
            out += text(of: number)
        case let array as [Any]:
            if array.isEmpty { out += "[]"; return }
            out += "["
            for (index, element) in array.enumerated() {
                if index > 0 { out += "," }
                newline(&out, indent: indent, level: level + 1)
                write(element, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out += "]"
        case let object as [String: Any]:
            if object.isEmpty { out += "{}"; return }
            out += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                newline(&out, indent: indent, level: level + 1)
                writeString(key, into: &out)
                out += indent == nil ? ":" : " : "
                write(object[key]!, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out += "}"
        default:
            out += "null"
        }
    }

    private static func newline(_ out: inout String, indent: Int?, level: Int) {
        guard let indent else { return }
        out += "\n"
        out += String(repeating: " ", count: indent * level)
    }

    /// JSON's `true`/`false` carry the `c` type; parsed fractions `d`; integers `q` (or `Q` past Int64).
    static func text(of number: NSNumber) -> String {
        switch String(cString: number.objCType) {
        case "c", "B": return number.boolValue ? "true" : "false"
        case "d", "f":
            let value = number.doubleValue
            return value.isFinite ? "\(value)" : "null"
        default: return number.stringValue
        }
    }

    /// Quotes and backslashes escaped, control characters as `\u00XX`, `/` and non-ASCII as they are.
    static func writeString(_ string: String, into out: inout String) {
        out += "\""
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += string
            out += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
