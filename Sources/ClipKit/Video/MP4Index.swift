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
        // By its bytes, as libavformat opened it (a name that is not UTF-8 included).
        let fd = open(FileSystemPath.cString(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let end = UInt64(info.st_size)
        var offset: UInt64 = 0
        var types: Set<String> = []
        var header = [UInt8](repeating: 0, count: 16)
        for index in 0..<Self.maxBoxes {
            guard offset + 8 <= end else { break }
            let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard count >= 8 else { break }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            // The first box says whether this is an ISO media file at all.
            if index == 0 && !Self.firstBoxes.contains(type) { return false }
            types.insert(type)
            var size = header[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if size == 1 {
                guard count >= 16 else { break }
                size = header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
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
