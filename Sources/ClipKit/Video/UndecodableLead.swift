// The packets of a file that begins between keyframes that are not sent to the decoder.
@_weakLinked import CFFmpeg

/// Which packets of a stream that begins between keyframes (`DecodableStart`) a decode pass
/// leaves out: those before the key packet the first shown frame is decoded from, and, once
/// that frame's packet is sent, those timed before it (an open GOP's leading pictures, which
/// need the GOP before). Both need pictures the file does not hold, and would only be damage.
/// Between the key packet and the first shown frame's packet every packet is sent, timed
/// before it or not: a stream refreshed without keyframes (x264's `intra-refresh`, flagged key
/// at its recovery points) is rebuilt over them, and the decoder shows none of them. (Left out
/// by their timestamps alone, as they were, a TS cut 30% into such a stream lost its first 2 s
/// of good pictures, ffmpeg's first frame at 10.92 s, until the next refresh; a shorter one
/// failed with "no frame could be decoded".) Untimed packets are sent.
struct UndecodableLead {
    let start: DecodableStart.Start?
    /// The key packet is reached (or a packet at or after the first shown frame).
    private var reached = false
    /// A packet at or after the first shown frame was sent.
    private var shownSent = false

    init(_ start: DecodableStart.Start?) {
        self.start = start
    }

    /// True for a packet to leave out.
    mutating func skips(_ packet: AVPacket) -> Bool {
        guard let start, packet.pts != ck_av_nopts_value() else { return false }
        if !reached {
            let isDecodeStart = packet.flags & AV_PKT_FLAG_KEY != 0 && packet.pts == start.decodedFrom
            guard isDecodeStart || packet.pts >= start.shown else { return true }
            reached = true
        }
        if packet.pts >= start.shown {
            shownSent = true
            return false
        }
        return shownSent
    }
}
