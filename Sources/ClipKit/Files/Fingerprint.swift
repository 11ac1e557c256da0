// What an output records about how it was made, so a later run can tell it is up to date.
import CPNG
import Foundation

/// The fingerprint of an output: a hash of the input's bytes, the options that shape the output,
/// and clipkit's output-format version. Outputs record it inside themselves (a PNG `tEXt`
/// chunk, a GIF comment, a `frames.json` field), so nothing else is written beside them and an
/// output restored from a CI cache, with new modification times, is still known to be up to date.
/// The same input and options give the same fingerprint, so outputs stay byte-identical.
public struct Fingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Raised when clipkit writes different bytes for the same input and options, so outputs
    /// of an earlier version are made again once. 2: animated PNGs convert as animations (a
    /// 1-frame GIF before), a last frame lasts its own packet duration where the header gives
    /// none, raw pictures cut short are not decoded, JPEG photos are turned upright by their
    /// EXIF orientation. 3: GIF inputs whose tables repeat or whose frames show at most 255
    /// colours get one palette, and an undrawn transparent index is not transparency; animated
    /// PNGs of frames of 2 cs or more keep their own timing. 4: frames with transparency are
    /// drawn over the last where no pixel turns transparent (`TransparentChain`). 5: a video's
    /// `frames.json` gives loop count 0 (it was null, so a GIF rebuilt from it played once).
    public static let formatVersion = 5
    /// The PNG `tEXt` keyword and the GIF comment's prefix.
    static let keyword = "clipkit-fingerprint"

    /// `clipkit<version>-<algorithm>-<content hash>-<options hash>`: ASCII, at most 100 bytes.
    public let text: String

    /// The fingerprint of an output made from an input whose bytes hash to `contentHash`
    /// (`ContentHash.ofFile`) with the shaping options `options` (for example
    /// `GIFOptions.fingerprintOptions`).
    public init(contentHash: String, options: String) {
        // The options text is hashed too (av_hash needs no file): short, and no user text leaks in.
        let optionsHash = ContentHash.ofBytes(Array(options.utf8))
        text = "clipkit\(Self.formatVersion)-\(ContentHash.algorithm)-\(contentHash)-\(optionsHash)"
    }

    init?(recorded text: String) {
        guard text.hasPrefix("clipkit"), text.utf8.count <= 100,
              text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        self.text = text
    }

    public var description: String { text }

    /// The fingerprint recorded in an output clipkit wrote: a PNG, a GIF, a JPEG, an MP4 or WebP,
    /// or an exploded or storyboard directory (whose manifest must list only files that are there); nil when there is none
    /// or the output is incomplete. Reads a few hundred bytes of a PNG or GIF.
    public static func recorded(in output: URL) -> Fingerprint? {
        var isDirectory = false
        guard FileSystemPath.exists(output.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory { return OutputDirectoryKind.all.lazy.compactMap { $0.recordedFingerprint(output) }.first }
        guard let tail = tail(of: output, bytes: 512) else { return nil }
        if let found = fromPNG(tail) ?? fromGIF(tail) ?? fromTrailingBox(tail) { return found }
        // A JPEG records it among its headers, in its first bytes.
        return head(of: output, bytes: 512).flatMap(fromJPEG)
    }

    /// What an MP4 or WebP records `self` with, appended at its end: an ISO BMFF `free` box (MP4:
    /// after `mdat`, skipped by every reader) or a RIFF chunk `CKFP` (WebP: an unknown chunk,
    /// which readers skip; the RIFF size is raised to include it).
    func trailingBox(for format: AnimationFormat) -> [UInt8] {
        let payload = Array((Self.keyword + " " + text).utf8)
        switch format {
        case .mp4:
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("free".utf8) + payload
        case .webp:
            let size = UInt32(payload.count)
            return Array("CKFP".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
                + payload + (payload.count % 2 == 1 ? [0] : [])
        }
    }

    /// An MP4 or WebP ending with `trailingBox`.
    private static func fromTrailingBox(_ tail: [UInt8]) -> Fingerprint? {
        let prefix = Array((keyword + " ").utf8)
        for tag in ["free", "CKFP"] {
            // MP4: size, "free", text; WebP: "CKFP", size, text (and a pad byte).
            let marker = tag == "free" ? Array(tag.utf8) + prefix : Array(tag.utf8)
            guard let at = lastIndex(of: marker, in: tail), at >= 4 || tag == "CKFP" else { continue }
            let textStart = tag == "free" ? at + marker.count : at + 8 + prefix.count
            var textEnd = tail.count
            if tag == "free" {
                let size = tail[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
                guard at - 4 + size == tail.count else { continue }
            } else {
                guard at + 8 <= tail.count else { continue }
                let size = tail[(at + 4)..<(at + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
                guard at + 8 + size + (size & 1) == tail.count else { continue }
                textEnd = at + 8 + size
                guard Array(tail[(at + 8)..<min(at + 8 + prefix.count, tail.count)]) == prefix else { continue }
            }
            guard textStart <= textEnd else { continue }
            return Fingerprint(recorded: String(decoding: tail[textStart..<textEnd], as: UTF8.self))
        }
        return nil
    }

    /// The PNG `tEXt` chunk that records `self`, placed just before `IEND`.
    var pngTextChunk: (type: String, data: [UInt8]) {
        ("tEXt", Array(Self.keyword.utf8) + [0] + Array(text.utf8))
    }

    /// The GIF comment extension's text.
    var gifComment: String { Self.keyword + " " + text }

    /// The first `bytes` bytes of a regular file (all of a shorter one).
    private static func head(of url: URL, bytes: Int) -> [UInt8]? {
        read(url) { _ in 0..<bytes }
    }

    /// The last `bytes` bytes of a regular file (all of a shorter one).
    private static func tail(of url: URL, bytes: Int) -> [UInt8]? {
        read(url) { size in (size - bytes)..<size }
    }

    /// The bytes of a regular file in the range `range` gives for its size (clamped to the file).
    private static func read(_ url: URL, range: (Int) -> Range<Int>) -> [UInt8]? {
        let fd = open(FileSystemPath.cString(url.path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size), wanted = range(size)
        let start = max(0, wanted.lowerBound), end = min(size, wanted.upperBound)
        var buffer = [UInt8](repeating: 0, count: max(0, end - start))
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
        guard count == buffer.count else { return nil }
        return buffer
    }

    /// A PNG ending `...tEXt(keyword, text) IEND`.
    private static func fromPNG(_ tail: [UInt8]) -> Fingerprint? {
        let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        guard tail.count > iend.count + 12, Array(tail.suffix(iend.count)) == iend else { return nil }
        let marker = Array("tEXt\(keyword)".utf8) + [0]
        guard let at = lastIndex(of: marker, in: tail), at >= 4 else { return nil }
        let length = tail[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
        let textStart = at + marker.count, chunkEnd = at + 4 + length
        guard chunkEnd + 4 + iend.count == tail.count, textStart <= chunkEnd else { return nil }
        let crc = tail[chunkEnd..<(chunkEnd + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let computed = tail[at..<chunkEnd].withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        guard crc == UInt32(computed) else { return nil }
        return Fingerprint(recorded: String(decoding: tail[textStart..<chunkEnd], as: UTF8.self))
    }

    /// A GIF ending with the comment extension `21 FE <len> "keyword text" 00 3B`.
    private static func fromGIF(_ tail: [UInt8]) -> Fingerprint? {
        guard tail.count > 4, tail[tail.count - 1] == 0x3B, tail[tail.count - 2] == 0 else { return nil }
        let marker: [UInt8] = [0x21, 0xFE]
        let prefix = Array((keyword + " ").utf8)
        guard let at = lastIndex(of: marker, in: tail), at + 3 <= tail.count else { return nil }
        let length = Int(tail[at + 2])
        guard at + 3 + length + 2 == tail.count, length > prefix.count,
              Array(tail[(at + 3)..<(at + 3 + prefix.count)]) == prefix else { return nil }
        return Fingerprint(recorded: String(decoding: tail[(at + 3 + prefix.count)..<(at + 3 + length)], as: UTF8.self))
    }

    private static func lastIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.count - needle.count
        while index >= 0 {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index -= 1
        }
        return nil
    }
}

/// Where the fingerprint an output records comes from.
public enum FingerprintSource: Sendable, Equatable {
    /// Already known (the caller hashed the input to see whether the output was up to date).
    case known(Fingerprint)
    /// Hash the input while converting it, on a thread of its own that the conversion joins,
    /// and combine it with these shaping options.
    case hashingInput(options: String)
}
