// Reading the demuxer's packets: the video stream's timestamps made continuous where they jump.
@_weakLinked import CFFmpeg

extension Demuxer {
    /// The next packet of any stream (`av_read_frame`), the video stream's timestamps made
    /// continuous in the formats whose timestamps may jump (`TimestampJumps`).
    func read(_ packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        let status = av_read_frame(format, packet)
        guard status >= 0 else {
            if status != ck_averror_eof() { readFailure = status }
            return status
        }
        noteReach(packet.pointee)
        if packet.pointee.stream_index == streamIndex { jumps?.correct(packet) }
        return status
    }

    /// Moves `packetsReach` on to where `packet` ends, when later (its own times, before any
    /// correction of jumps).
    private func noteReach(_ packet: AVPacket) {
        let time = packet.pts != ck_av_nopts_value() ? packet.pts : packet.dts
        guard time != ck_av_nopts_value(), packet.stream_index >= 0, Int(packet.stream_index) < Int(format.pointee.nb_streams),
              let stream = format.pointee.streams[Int(packet.stream_index)] else { return }
        let end = Double(time) * stream.pointee.time_base.seconds + Double(max(packet.duration, 0)) * stream.pointee.time_base.seconds
        if end.isFinite, end > packetsReach { packetsReach = end }
    }

    /// The length the header states and how far the packets read reach, both in seconds from
    /// `origin` (on the file's clock), when the file ends well short of that length: by over
    /// half a second and 3% of it (less is a header that counts a last frame differently),
    /// `reached` (from `origin`: the frames') counting as read, and no more than `wanted` as
    /// stated (the range asked for). Nil otherwise, and in MPEG-TS/PS, whose length is
    /// libavformat's reading of the file's own last timestamps. On the file's clock, a video
    /// that starts after the audio (a Matroska file's length counts from the first stream's
    /// start) is measured from its own start.
    func shortfall(from origin: Double, reached: Double, wanted: Double? = nil) -> Shortfall? {
        guard jumps == nil, let statedEnd else { return nil }
        let stated = statedEnd - origin
        guard stated.isFinite, stated > 0 else { return nil }
        let reach = packetsReach - origin, limit = min(wanted ?? stated, stated)
        guard limit - max(reach, reached) > max(0.5, 0.03 * limit) else { return nil }
        return Shortfall(stated: stated, reach: reach)
    }

    /// See `shortfall(from:reached:wanted:)`.
    struct Shortfall: Sendable, Equatable {
        let stated: Double
        let reach: Double
    }

    /// A warning when reading stopped at an error before the end of the file, with the frames
    /// up to `end` (seconds): libavformat's demuxers stop there (an APNG frame control chunk
    /// outside the picture, an audio chunk whose offset is past the file's end), and what
    /// followed was left out with nothing said, as if the file ended there. Nil otherwise,
    /// and where another warning (`cutShort`) already says the file ends early.
    func readStopWarning(end: Double) -> String? {
        guard let readFailure else { return nil }
        return String(format: "reading stopped at %.3fs (%@): what follows in the file is left out", end, ffmpegMessage(readFailure))
    }

    /// After a rewind or a seek: the packets read next start a new count of jumps, from the
    /// beginning (in a file whose timestamps jump, nothing else is sought to).
    func restartTimestamps() {
        guard jumps != nil else { return }
        jumps = TimestampJumps(timeBase: stream.pointee.time_base.seconds, frameRate: info.frameRate)
    }
}
