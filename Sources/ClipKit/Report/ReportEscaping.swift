// Escaping for every piece of text the report writes: HTML text and attributes, Markdown, URL paths, JSON data blocks.
import Foundation

/// File names are hostile input: quotes, `<script>`, `|`, backticks, newlines, long and
/// non-UTF-8 names must reach the page as text. A non-UTF-8 name (read losslessly from a line's
/// `input_bytes`/`outputs_bytes`, see `FileSystemPath`) is shown with each such byte as `\xFF`,
/// as clipkit's messages show it, and linked by its real bytes. Characters that reorder or hide
/// text are shown as `\u{202E}` (`shownEscaped`), and linked by their real bytes too.
public enum ReportEscaping {
    /// The text shown for a character that would change how a name reads rather than be seen:
    /// the bidirectional embeddings, overrides, isolates and marks (U+202A-U+202E,
    /// U+2066-U+2069, U+200E, U+200F, U+061C), with which `rtl\u{202E}oo.mp4` displays as
    /// `rtl4pm.oo`, and the C1 controls (U+0080-U+009F). They were written as they are (a
    /// numeric reference is the same character to a browser); now as `\u{202E}` in plain text,
    /// in the `\xFF` style of a non-UTF-8 byte. Nil for any other character.
    static func shownEscaped(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return String(format: "\\u{%04X}", scalar.value)
        default:
            return nil
        }
    }

    /// Safe in HTML text and in a double- or single-quoted attribute; control characters become
    /// numeric references so a newline in a name cannot break a line of the table.
    public static func html(_ text: String) -> String {
        escapingHTML(text, inAttribute: true)
    }

    /// Safe as element content (not in an attribute): only `&`, `<` and `>` need escaping there,
    /// which keeps JSON text short; control characters other than newline become references.
    public static func text(_ text: String) -> String {
        escapingHTML(text, inAttribute: false)
    }

    /// `&`, `<`, `>` and control characters as references; in attributes also quotes and
    /// backticks (and newlines), in element content newlines stay.
    private static func escapingHTML(_ text: String, inAttribute: Bool) -> String {
        let text = FileSystemPath.display(text)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&#39;"
            case "`" where inAttribute: out += "&#96;"
            default:
                let control = (scalar.value < 0x20 && (inAttribute || scalar != "\n")) || scalar.value == 0x7F
                if let shown = shownEscaped(scalar) {
                    out += shown
                } else if control {
                    out += "&#\(scalar.value == 0 ? 0xFFFD : scalar.value);"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Safe as GitHub-flavoured Markdown text and inside a table cell: Markdown punctuation
    /// backslash-escaped, HTML's characters as entities, line breaks as spaces.
    public static func markdown(_ text: String) -> String {
        let text = FileSystemPath.display(text)
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "|": out += "&#124;"
            case "\\", "`", "*", "_", "[", "]", "#", "!", "~", "{", "}", "$":
                out += "\\"; out.unicodeScalars.append(scalar)
            default:
                if let shown = shownEscaped(scalar) {
                    // Its backslash and braces escaped in turn, so Markdown shows them.
                    out += markdown(shown)
                } else if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A relative path as a URL path: every byte but unreserved ones and `/` percent-encoded
    /// (so `#`, `?`, `%`, quotes and spaces in names stay part of the name).
    public static func urlPath(_ path: String) -> String {
        var out = ""
        for byte in FileSystemPath.bytes(path) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// JSON for a `<script type="application/json">` block: `<`, `>` and `&` as `\u` escapes so
    /// no `</script>` or `<!--` can appear in it.
    public static func jsonForScript(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }

    /// A file name for a copy in `media/`: ASCII letters, digits, `.`, `-` and `_` only, at most 60 bytes.
    public static func safeFileName(_ name: String) -> String {
        let mapped = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        let trimmed = String(mapped.drop { $0 == "." })
        return trimmed.isEmpty ? "file" : String(trimmed.suffix(60))
    }
}
