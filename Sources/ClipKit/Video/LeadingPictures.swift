// After a seek, the packets of the landing keyframe's leading pictures, which are not sent to the decoder.
@_weakLinked import CFFmpeg

/// The leading pictures of the keyframe a seek lands on: packets that follow it in decode order
/// but come before it on screen (the B-frames of an open GOP). They need the GOP before, which
/// was never decoded; fed to the decoder they come out broken or make it drop the clean
/// pictures after the keyframe too (H.264 then loses its recovery point, and the last frames
/// of a stream never come out). Not sending them costs nothing: a frame before the keyframe
/// cannot be shown from this landing anyway (`FrameDecoder` then decodes from an earlier one).
struct LeadingPictures {
    /// Waiting for the first packet flagged key after a seek.
    private var awaitingKey: Bool
    /// That packet's presentation timestamp, until the next key packet.
    private var keyTimestamp: Int64?

    init(afterSeek: Bool) {
        awaitingKey = afterSeek
    }

    /// True for a packet to leave out.
    mutating func isLeading(_ packet: AVPacket) -> Bool {
        let isKey = packet.flags & AV_PKT_FLAG_KEY != 0
        if awaitingKey {
            if isKey && packet.pts != ck_av_nopts_value() {
                awaitingKey = false
                keyTimestamp = packet.pts
            }
            return false
        }
        guard let key = keyTimestamp else { return false }
        // The next keyframe ends the landing's GOP (and a timestamp discontinuity cannot drop more).
        if isKey {
            keyTimestamp = nil
            return false
        }
        return packet.pts != ck_av_nopts_value() && packet.pts < key
    }
}
