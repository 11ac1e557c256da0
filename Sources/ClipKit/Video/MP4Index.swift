// An MP4/MOV file cut before its index: told apart from files that are no video, for the error.
import Foundation

/// The top-level boxes of an ISO base media file (MP4, MOV, 3GP), read only to name why
/// libavformat refused one: a file whose media data (`mdat`) is there but whose index (`moov`,
/// written last unless the file was made with `+faststart`) is not, as a download or copy that
/// stopped, or a recording not finished, leaves it. FFmpeg says "moov atom not found".
enum MP4Index {
    /// What the error says of such a file.
    static let missingReason = "an MP4/MOV without its index (no moov box after the media data): cut short, still being written, or damaged"

    /// Whether the file at `path` starts as an ISO media file and holds media data but neither
    /// an index nor a fragment (`moof`) in the boxes the file has room for (a box that runs past
    /// the end of the file is the last).
    static func isMissing(at path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        guard let end = try? file.seekToEnd() else { return false }
        var offset: UInt64 = 0
        var types: Set<String> = []
        for index in 0..<Self.maxBoxes {
            guard offset + 8 <= end, (try? file.seek(toOffset: offset)) != nil,
                  let header = try? file.read(upToCount: 16), header.count >= 8 else { break }
            let bytes = [UInt8](header)
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            // The first box says whether this is an ISO media file at all.
            if index == 0 && !Self.firstBoxes.contains(type) { return false }
            types.insert(type)
            var size = UInt64(bytes[0]) << 24 | UInt64(bytes[1]) << 16 | UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            if size == 1 {
                guard bytes.count >= 16 else { break }
                size = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
            }
            // 0: the box runs to the end of the file; a size under a header's is damage.
            guard size >= 8, offset.addingReportingOverflow(size).overflow == false else { break }
            offset += size
        }
        return types.contains("mdat") && types.isDisjoint(with: ["moov", "moof"])
    }

    /// Boxes an MP4 or QuickTime file begins with.
    private static let firstBoxes: Set<String> = ["ftyp", "mdat", "free", "skip", "wide", "pnot", "uuid", "moov"]
    /// Top-level boxes read at most (a real file has a handful).
    private static let maxBoxes = 4096
}
