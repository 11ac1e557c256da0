// Sets an animated WebP's loop count and last frame duration in libwebp's assembled file, before it is written.

/// libwebp's animation encoder, as libavcodec drives it, cannot be told when the last frame ends:
/// it guesses the average frame duration. This walks the RIFF chunks of the assembled file and
/// sets the last `ANMF` frame's duration so the animation lasts exactly `milliseconds`, and the
/// `ANIM` loop count (libavformat's WebP muxer would patch a fixed offset instead). It also sets
/// the `VP8X` alpha flag when the frames had transparency: libwebp sets it only when a stored
/// frame has an alpha channel, but an opaque sub-frame over a transparent canvas (a box on
/// nothing) has none, and decoders that trust the flag (libwebp's demuxer) then show the
/// transparent canvas as opaque.
enum WebPAnimationPatch {
    /// Patches `bytes` in place; false when they are not an animated WebP (libwebp may write a
    /// single frame as a still image, which has no timing to set).
    static func apply(to bytes: UnsafeMutableBufferPointer<UInt8>, milliseconds: Int, loopCount: Int, hasAlpha: Bool) -> Bool {
        guard bytes.count >= 12, tag(bytes, 0) == "RIFF", tag(bytes, 8) == "WEBP" else { return false }
        var at = 12
        var sawAnimation = false
        var elapsed = 0
        var lastDuration: Int?
        while at + 8 <= bytes.count {
            let size = Int(le(bytes, at + 4, count: 4))
            let payload = at + 8
            guard payload + size <= bytes.count else { return false }
            switch tag(bytes, at) {
            case "VP8X" where size >= 1:
                if hasAlpha { bytes[payload] |= 0x10 }
            case "ANIM" where size >= 6:
                bytes[payload + 4] = UInt8(loopCount & 0xFF)
                bytes[payload + 5] = UInt8(loopCount >> 8 & 0xFF)
                sawAnimation = true
            case "ANMF" where size >= 16:
                if let lastDuration { elapsed += Int(le(bytes, lastDuration, count: 3)) }
                lastDuration = payload + 12
            default:
                break
            }
            at = payload + size + (size & 1)
        }
        guard sawAnimation, let lastDuration else { return false }
        // At least 1 ms, and at most what 24 bits hold.
        let duration = min(max(milliseconds - elapsed, 1), 0xFF_FFFF)
        for k in 0..<3 { bytes[lastDuration + k] = UInt8(duration >> (8 * k) & 0xFF) }
        return true
    }

    private static func tag(_ bytes: UnsafeMutableBufferPointer<UInt8>, _ at: Int) -> String {
        String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
    }

    private static func le(_ bytes: UnsafeMutableBufferPointer<UInt8>, _ at: Int, count: Int) -> UInt32 {
        (0..<count).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }
}
