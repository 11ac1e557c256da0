// Linux file names are bytes: a lossless String form for any of them, and the bytes back at every system call.
import Foundation

/// Paths travel through clipkit as Swift `String`s (and `URL`s made from them), but a Linux file
/// name is any bytes but `/` and NUL, and a `String` holds only valid Unicode. This is the one
/// mapping between the two, so a name that is not UTF-8 is opened, mirrored into output names
/// and reported like any other:
///
/// - bytes to `String` (`string(_:)`): valid UTF-8 as it is; every byte that is not part of a
///   valid sequence becomes the private-use scalar U+EF00 + byte (U+EF80...U+EFFF). Valid
///   sequences that spell one of those scalars are escaped byte by byte too, so the mapping is
///   one to one and `bytes(string(b)) == b` for every `b`.
/// - `String` to bytes (`bytes(_:)`, `cString(_:)`): U+EF80...U+EFFF back to their byte, the
///   rest as UTF-8. Every path handed to the kernel or to a C library goes through `cString`;
///   for a `String` without those scalars it is exactly its UTF-8.
///
/// Joining, splitting at `/` and cutting extensions work on the `String` as before (the escapes
/// are never `/`, `.` or NUL). Messages show the escapes as `\xFF` (`display(_:)`), JSON as
/// documented in the README ("JSON reports").
public enum FileSystemPath {
    /// The lowercased text after the last dot of `path`'s file name, a leading dot's too (`.jpg`
    /// names a JPEG to a user, though `URL.pathExtension` sees no extension in it); "" without one.
    public static func nameExtension(of path: String) -> String {
        let name = (path as NSString).lastPathComponent
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// The first scalar of the escape block; byte `b` (0x80...0xFF) is `escapeBase + b`.
    static let escapeBase: UInt32 = 0xEF00

    /// The lossless `String` form of the file name or path `bytes` (no NUL among them).
    public static func string<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let bytes = Array(bytes)
        if let plain = String(validating: bytes, as: UTF8.self), !plain.unicodeScalars.contains(where: isEscape) {
            return plain
        }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeScalar(bytes, at: index), !isEscape(scalar) {
                scalars.append(scalar)
                index += length
            } else {
                scalars.append(Unicode.Scalar(escapeBase + UInt32(bytes[index]))!)
                index += 1
            }
        }
        return String(scalars)
    }

    /// The lossless form of a NUL-terminated C string (`argv`, `readdir`, `realpath`, `mkstemp`).
    public static func string(cString: UnsafePointer<CChar>) -> String {
        string(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// The bytes `path` stands for.
    public static func bytes(_ path: String) -> [UInt8] {
        guard path.unicodeScalars.contains(where: isEscape) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// The NUL-terminated bytes of `path`, for a C call: `stat(FileSystemPath.cString(path), &info)`.
    public static func cString(_ path: String) -> [CChar] {
        bytes(path).map { CChar(bitPattern: $0) } + [0]
    }

    /// True when `path`'s bytes are valid UTF-8.
    public static func isUTF8(_ path: String) -> Bool {
        text(path) != nil
    }

    /// The text `path`'s bytes spell when they are valid UTF-8 (`path` itself unless it names
    /// one of the rare private-use characters U+EF80...U+EFFF); nil otherwise.
    public static func text(_ path: String) -> String? {
        guard path.unicodeScalars.contains(where: isEscape) else { return path }
        return String(validating: bytes(path), as: UTF8.self)
    }

    /// `path`'s text when it is UTF-8, else its `display` form: for JSON strings that name a
    /// path without a lossless companion (a manifest's `source`).
    public static func readable(_ path: String) -> String {
        text(path) ?? display(path)
    }

    /// How `--json` writes the path `path` under `key`: `[key: text]` when its bytes are UTF-8
    /// (the JSON as before), else `[key: display(path), key_bytes: base64 of the bytes]`.
    public static func jsonFields(_ key: String, _ path: String) -> [String: Any] {
        if let text = text(path) { return [key: text] }
        return [key: display(path), key + "_bytes": Data(bytes(path)).base64EncodedString()]
    }

    /// The same for a list of paths: `key` holds their texts (display forms), and when any is
    /// not UTF-8, `key_bytes` holds every one's bytes in base64, in the same order.
    public static func jsonFields(_ key: String, _ paths: [String]) -> [String: Any] {
        var fields: [String: Any] = [key: paths.map(readable)]
        if !paths.allSatisfy(isUTF8) { fields[key + "_bytes"] = paths.map { Data(bytes($0)).base64EncodedString() } }
        return fields
    }

    /// `text` (a path or a message naming one) for people: each byte of a name that is not
    /// UTF-8 as `\xFF`; all else as it is.
    public static func display(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isEscape(scalar) {
                out.append(contentsOf: String(format: "\\x%02X", scalar.value - escapeBase).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= escapeBase + 0x80 && scalar.value <= escapeBase + 0xFF
    }

    /// The scalar of the valid UTF-8 sequence starting at `index` and its length, or nil.
    private static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
        guard length > 0, index + length <= bytes.count else { return nil }
        // String(validating:) rejects overlong forms, surrogates and values past U+10FFFF.
        guard let text = String(validating: bytes[index..<index + length], as: UTF8.self),
              let scalar = text.unicodeScalars.first else { return nil }
        return (scalar, length)
    }
}
