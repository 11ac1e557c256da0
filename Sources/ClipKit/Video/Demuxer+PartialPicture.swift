// A YUV4MPEG file that ends inside a picture: libavformat drops the part silently.
@_weakLinked import CFFmpeg
import Foundation

extension Demuxer {
    /// A YUV4MPEG file (a header line, then pictures of one size each after `FRAME\n`) cut
    /// inside a picture: the bytes of it there are and the picture's size. libavformat drops
    /// such a tail without a word, and the format states no length to compare the frames with,
    /// so nothing else tells a cut file from a whole one. The file's own bytes are looked at:
    /// a `FRAME` line where the last whole picture starts and another where the cut one does
    /// (frames with parameters on their `FRAME` lines, whose pictures do not fall at fixed
    /// places, give none). Nil for other formats and whole files.
    func partialPicture() -> (have: Int, need: Int)? {
        guard String(cString: format.pointee.iformat.pointee.name) == "yuv4mpegpipe" else { return nil }
        let parameters = stream.pointee.codecpar.pointee
        let picture = Int(av_image_get_buffer_size(AVPixelFormat(rawValue: parameters.format), parameters.width, parameters.height, 1))
        guard picture > 0, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4096), let newline = head.firstIndex(of: 0x0A),
              let size = try? handle.seekToEnd(), size > 0 else { return nil }
        let frame = UInt64(picture) + 6
        let header = UInt64(newline - head.startIndex + 1)
        guard size > header + frame else { return nil }
        let whole = (size - header) / frame, rest = (size - header) % frame
        guard rest > 6 else { return nil }
        func startsAFrame(_ offset: UInt64) -> Bool {
            (try? handle.seek(toOffset: offset)) != nil && (try? handle.read(upToCount: 6)) == Data("FRAME\n".utf8)
        }
        guard startsAFrame(header + (whole - 1) * frame), startsAFrame(header + whole * frame) else { return nil }
        return (Int(rest) - 6, picture)
    }

    /// `partialPicture()` as a warning.
    var partialPictureWarning: String? {
        partialPicture().map { "the file ends inside a picture (\($0.have) of its \($0.need) bytes), which is left out: it may be cut short" }
    }
}
