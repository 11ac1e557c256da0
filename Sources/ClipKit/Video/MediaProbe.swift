// Recognises media files by their first bytes with libavformat's probe, not by their names.
import CFFmpeg
import Foundation

/// Tells media files from others by content, for directory scans.
public enum MediaProbe {
    /// True when libavformat recognises the start of the file as a container or image format
    /// it can read (GIF, MP4, Matroska, ...). Reads at most 4 KiB; the name is not consulted.
    public static func isMedia(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4096), !head.isEmpty else { return false }
        // libavformat wants zeroed padding after the probe data.
        var buffer = [UInt8](head) + [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
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
