// Tells media files from others in directory scans: by name where that is enough, else by content.
@_weakLinked import CFFmpeg
import Foundation

/// Sorts the files of a scanned directory: media by extension, text by its bytes, the rest by
/// libavformat's probe.
public enum MediaProbe {
    /// What a directory scan makes of a file.
    public enum Kind: Sendable, Equatable {
        /// Named like a video or GIF: taken as an input (one that does not open is that input's error).
        case mediaByName
        /// Recognised by libavformat's probe of its first bytes, whatever its name.
        case mediaByContent
        /// Neither: ignored (and counted).
        case other
    }

    /// Extensions of videos and GIFs. A file named so is expected to be one: if it does not open,
    /// that is reported, never silently skipped.
    public static let mediaExtensions: Set<String> = [
        "gif", "mp4", "m4v", "mov", "qt", "mkv", "webm", "avi", "wmv", "asf", "flv", "f4v", "ts", "mts", "m2ts", "m2t",
        "mpg", "mpeg", "mpe", "m1v", "m2v", "vob", "3gp", "3g2", "ogv", "mxf", "dv", "y4m", "h264", "264", "h265",
        "265", "hevc", "ivf", "nut", "rm", "rmvb", "divx", "mjpeg", "mjpg",
    ]

    /// Sorts one regular file: by its extension, then (for other names) by whether its first
    /// 4 KiB are text, which no video is, and only then by libavformat's probe, which loads FFmpeg.
    public static func kind(of url: URL) -> Kind {
        if mediaExtensions.contains(url.pathExtension.lowercased()) { return .mediaByName }
        guard let head = head(of: url), !head.isEmpty, !isText(head) else { return .other }
        return probe(head) && mayHoldVideo(url) ? .mediaByContent : .other
    }

    /// For a file its content alone names media: false when libavformat cannot open it after
    /// all, or opens it with its streams known and none a video (an MP3 or a WAV, with or without
    /// cover art: sound, not a clip; given by name, `thumb` still takes an audio file's cover).
    /// The probe's guesses are weak at the edges: gzip data is the `libgme` music format's at the
    /// lowest score accepted, and a directory with `notes.txt.gz` or `song.mp3` beside its clips
    /// failed its batch for them. Formats that find their streams only by reading them
    /// (MPEG-TS/PS) count as holding video.
    static func mayHoldVideo(_ url: URL) -> Bool {
        guard let opened = try? FormatContext(path: url.path, deadline: .none) else { return false }
        let context = opened.pointer.pointee
        if context.ctx_flags & AVFMTCTX_NOHEADER != 0 { return true }
        return (0..<Int(context.nb_streams)).contains {
            let stream = context.streams[$0]!.pointee
            return stream.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
    }

    /// True when libavformat recognises the start of the file as a container or image format
    /// it can read (GIF, MP4, Matroska, PNG, ...). Reads at most 4 KiB; the name is not consulted.
    public static func isMedia(_ url: URL) -> Bool {
        guard let head = head(of: url), !head.isEmpty else { return false }
        return probe(head)
    }

    private static func head(of url: URL) -> [UInt8]? {
        // A regular file only: a FIFO or device would block the read.
        FileSystemPath.contentsOfRegularFile(url.path, limit: 4096).map { [UInt8]($0.prefix(4096)) }
    }

    /// Printable UTF-8 without NUL bytes (a README, a JSON sidecar, a playlist): not a video.
    /// A YUV4MPEG2 header is text followed by raw pictures, so it does not count.
    static func isText(_ head: [UInt8]) -> Bool {
        if head.starts(with: Array("YUV4MPEG2".utf8)) { return false }
        guard !head.contains(where: { $0 == 0 || ($0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains($0)) }) else { return false }
        // A multi-byte character may be cut at the end of the 4 KiB.
        for cut in 0...3 where head.count > cut {
            if String(validating: head.dropLast(cut), as: UTF8.self) != nil { return true }
        }
        return false
    }

    private static func probe(_ head: [UInt8]) -> Bool {
        guard (try? FFmpegLibraries.load()) != nil else { return false }
        // libavformat wants zeroed padding after the probe data.
        var buffer = head + [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        return buffer.withUnsafeMutableBufferPointer { bytes -> Bool in
            "".withCString { name in
                var probe = AVProbeData()
                probe.filename = name
                probe.buf = bytes.baseAddress
                probe.buf_size = Int32(head.count)
                var score: Int32 = 0
                guard av_probe_input_format2(&probe, 1, &score) != nil else { return false }
                return score >= AVPROBE_SCORE_MAX / 4
            }
        }
    }
}
