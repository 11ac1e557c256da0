// A file name or path as its bytes, for the report's dictionaries, sets and ordering: names are compared as bytes.
import Foundation

/// Swift's `String` `==` and hashing are canonical equivalence: `"caf\u{E9}.mp4"` (NFC) and
/// `"cafe\u{301}.mp4"` (NFD) are one key, though they are two files (and two inputs to clipkit,
/// with an output each). Keyed by the strings, the report merged such clips into one, and one
/// GIF and poster vanished. This key is the bytes the name stands for (`FileSystemPath.bytes`:
/// a name that is not UTF-8 is its real bytes too).
struct NameBytes: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ name: String) {
        bytes = FileSystemPath.bytes(name)
    }

    /// The report's order of names: as `String`'s `<` orders them (the order reports always had),
    /// with names that differ only as canonically equivalent forms ordered by their bytes, so
    /// the same inputs give the same order every run.
    static func precedes(_ a: String, _ b: String) -> Bool {
        if a < b { return true }
        if b < a { return false }
        return FileSystemPath.bytes(a).lexicographicallyPrecedes(FileSystemPath.bytes(b))
    }
}
