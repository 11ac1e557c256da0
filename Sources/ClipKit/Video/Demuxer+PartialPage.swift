// An Ogg file that ends inside a page: libavformat drops the page silently.
@_weakLinked import CFFmpeg
import Foundation

extension Demuxer {
    /// The most an Ogg page can take: its 27-byte header, 255 lacing values and 255 segments
    /// of 255 bytes.
    static let largestOggPage = 27 + 255 + 255 * 255

    /// An Ogg file (Theora, VP8 in Ogg) cut inside a page: the bytes of it there are and the
    /// page's size (nil when the cut falls in its header, which holds the size). libavformat drops such a page without
    /// a word, and Ogg states no length (its duration is the last whole page's granule), so
    /// nothing else tells a cut file from a whole one; ffmpeg says nothing either. The file's
    /// own tail is read: from the first `OggS` in it whose pages follow each other, each where
    /// the one before says it ends, to the end of the file. Nil for other formats, whole files,
    /// and tails whose pages do not chain (something other than Ogg pages after the last one).
    func partialOggPage() -> (have: Int, need: Int?)? {
        guard String(cString: format.pointee.iformat.pointee.name) == "ogg",
              let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return nil }
        // Two of the largest pages: a page that starts in the first half reaches into the second.
        let start = size > UInt64(2 * Self.largestOggPage) ? size - UInt64(2 * Self.largestOggPage) : 0
        guard (try? handle.seek(toOffset: start)) != nil, let tail = try? handle.readToEnd(),
              UInt64(tail.count) == size - start else { return nil }
        return tail.withUnsafeBytes { Self.partialOggPage(in: $0, startsFile: start == 0) }
    }

    /// `partialOggPage()` of a file's last `bytes` (the whole file when `startsFile`).
    /// A chain is taken only when it starts at the file's start or holds a whole page before the
    /// cut one, so an `OggS` inside a packet's data does not pass for a page.
    static func partialOggPage(in bytes: UnsafeRawBufferPointer, startsFile: Bool) -> (have: Int, need: Int?)? {
        let count = bytes.count
        func isPageStart(_ at: Int) -> Bool {
            at + 5 <= count && bytes[at] == 0x4F && bytes[at + 1] == 0x67 && bytes[at + 2] == 0x67 && bytes[at + 3] == 0x53
                && bytes[at + 4] == 0
        }
        // Candidates within the first page's reach: past it, a page starting before the window
        // would cover them.
        for candidate in 0..<min(count, Self.largestOggPage + 1) where isPageStart(candidate) {
            var at = candidate, pages = 0
            while true {
                guard at < count else { return nil }  // the pages end where the file does: whole
                let left = count - at
                // Cut inside the header or its lacing values: the page's size is not known.
                guard left >= 27 else {
                    if pages > 0 || (startsFile && candidate == 0) { return (left, nil) }
                    break
                }
                let segments = Int(bytes[at + 26])
                guard left >= 27 + segments else {
                    if pages > 0 || (startsFile && candidate == 0) { return (left, nil) }
                    break
                }
                var page = 27 + segments
                for i in 0..<segments { page += Int(bytes[at + 27 + i]) }
                if page > left {
                    if pages > 0 || (startsFile && candidate == 0) { return (left, page) }
                    break
                }
                at += page
                pages += 1
                guard at == count || isPageStart(at) else { break }
            }
        }
        return nil
    }

    /// `partialOggPage()` as a warning.
    var partialOggPageWarning: String? {
        partialOggPage().map { page in
            let part = page.need.map { "\(page.have) of its \($0) bytes" } ?? "the first \(page.have) bytes of its header"
            return "the file ends inside an Ogg page (\(part)), which is left out: it may be cut short"
        }
    }
}
