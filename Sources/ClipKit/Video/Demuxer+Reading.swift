// Reading the demuxer's packets: the video stream's timestamps made continuous where they jump.
@_weakLinked import CFFmpeg

extension Demuxer {
    /// The next packet of any stream (`av_read_frame`), the video stream's timestamps made
    /// continuous in the formats whose timestamps may jump (`TimestampJumps`).
    func read(_ packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        let status = av_read_frame(format, packet)
        if status >= 0, packet.pointee.stream_index == streamIndex { jumps?.correct(packet) }
        return status
    }

    /// After a rewind or a seek: the packets read next start a new count of jumps, from the
    /// beginning (in a file whose timestamps jump, nothing else is sought to).
    func restartTimestamps() {
        guard jumps != nil else { return }
        jumps = TimestampJumps(timeBase: stream.pointee.time_base.seconds, frameRate: info.frameRate)
    }
}
