// The damage a decode met in the file's own data, for one warning when the frames are out.

/// Damage in the file's own data that a decode went on past, as ffmpeg goes on and logs it:
/// pictures the decoder concealed (decoded with errors) and packets it could not decode at
/// all (the frame before stays on screen). Counted where it is the file's (not a seek's
/// landing mid-GOP, whose damage is expected) and the same every run: concealment on frame
/// threads races (`FrameDecoder.checkDamage`), so pictures and failed packets are counted on
/// one decoder thread (`DecoderThreads.one`), which every output job that met damage on
/// several runs again; a raw picture cut short is counted on any.
struct DecodeDamage {
    /// Whether pictures and failed packets are counted (`DecoderThreads.one`).
    let countsDecoding: Bool
    private(set) var concealedFrames = 0
    private(set) var failedPackets = 0
    /// Why the first packet counted failed (FFmpeg's message).
    private(set) var firstReason: String?

    init(threads: DecoderThreads) {
        countsDecoding = threads == .one
    }

    /// A picture decoded with errors, shown as the decoder concealed them.
    mutating func frameConcealed() {
        if countsDecoding { concealedFrames += 1 }
    }

    /// A packet the decoder refused or failed on, for `reason`.
    mutating func packetFailed(_ reason: String) {
        guard countsDecoding else { return }
        failedPackets += 1
        firstReason = firstReason ?? reason
    }

    /// A raw picture shorter than a whole one: not decoded, on any number of threads.
    mutating func rawPictureCut(_ reason: String) {
        failedPackets += 1
        firstReason = firstReason ?? reason
    }

    /// Pictures decoded from a packet cut short (`JPEGEndMarker`), counted on any number of threads.
    private(set) var cutPictures = 0
    private(set) var cutReason: String?

    /// A picture whose packet is cut short, decoded as far as it goes, for `reason`.
    mutating func pictureCut(_ reason: String) {
        cutPictures += 1
        cutReason = cutReason ?? reason
    }

    /// A pass from another point starts: what the one before met is not the frames'.
    mutating func restart() {
        (concealedFrames, failedPackets, firstReason) = (0, 0, nil)
        (cutPictures, cutReason) = (0, nil)
    }

    /// One line for the end of the decode; nil without damage.
    var warning: String? {
        var parts: [String] = []
        if concealedFrames > 0 {
            parts.append("\(concealedFrames) \(concealedFrames == 1 ? "picture" : "pictures") decoded with errors, shown as the decoder concealed them")
        }
        if cutPictures > 0 {
            parts.append("\(cutPictures) \(cutPictures == 1 ? "picture" : "pictures") cut short (\(cutReason ?? "damaged")), shown as far as \(cutPictures == 1 ? "it goes" : "they go")")
        }
        if failedPackets > 0 {
            let count = failedPackets == 1 ? "1 packet" : "\(failedPackets) packets"
            parts.append("\(count) could not be decoded (\(firstReason ?? "damaged")), the frame before left on screen")
        }
        return parts.isEmpty ? nil : "damaged video data: " + parts.joined(separator: "; ")
    }
}
