// Whether a Motion JPEG packet holds its picture to the end: a JPEG cut short has no end-of-image marker.
@_weakLinked import CFFmpeg

/// A Motion JPEG picture cut short (the last packet of a truncated AVI, MOV or raw .mjpeg)
/// decodes without an error: FFmpeg's decoder logs "EOI missing, emulating" as a warning and
/// hands on the picture with what it had, the rest of it left as it was (a flat green lower
/// half in a 4:2:0 picture), flagged as nothing. ffmpeg's log shows it; clipkit said nothing.
/// A whole picture ends with the EOI marker (FF D9), which entropy-coded data cannot hold
/// (an FF there is followed by 00, or by a restart marker D0-D7); what follows it is padding
/// (00 or FF bytes to an even or aligned size) or, from some cameras, a few bytes more.
enum JPEGEndMarker {
    /// How far before the end of a packet, padding aside, the end marker is looked for.
    static let trailingBytes = 64

    /// Whether the stream `parameters` describe is Motion JPEG, whose packets are checked.
    static func applies(to parameters: AVCodecParameters) -> Bool {
        parameters.codec_id == AV_CODEC_ID_MJPEG
    }

    /// Whether `bytes` (one packet) end with a JPEG's end-of-image marker, padding and a few
    /// trailing bytes allowed. Two fields in one packet (interlaced Motion JPEG) end with the second's.
    static func isComplete(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var end = bytes.count
        while end > 0 && (bytes[end - 1] == 0x00 || bytes[end - 1] == 0xFF) { end -= 1 }
        var at = end - 1
        while at >= 1 && at >= end - trailingBytes {
            if bytes[at] == 0xD9 && bytes[at - 1] == 0xFF { return true }
            at -= 1
        }
        return false
    }
}
