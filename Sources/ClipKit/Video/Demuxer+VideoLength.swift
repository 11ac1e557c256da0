// The video's own length where the header gives only the container's: read from the file's tail.
@_weakLinked import CFFmpeg

extension Demuxer {
    /// How long the video runs, from its first frame to the end of its last, in a file whose
    /// header length is the container's and may be the audio's (`lengthMayRunPastVideo`: a
    /// WebM whose Opus runs 0.2 s past the last frame, a Matroska file with 2 s of video and 3 s of
    /// audio). The packets of the last seconds are read (a seek back from the stated end, further
    /// back while no video packet is among them); the last video packet's end is the video's, and
    /// when the other streams' packets reach the stated length the file is whole. Nil where the
    /// header's length stands: nothing to measure, a seek refused, no video packet, or a file
    /// that ends well short of its stated length (cut short: what reads it says so). Moves the
    /// read position: for a demuxer of its own.
    func measuredVideoLength() throws -> Double? {
        guard info.lengthMayRunPastVideo, jumps == nil, let statedEnd, let startTime else { return nil }
        let timeBase = stream.pointee.time_base.seconds
        guard timeBase > 0 else { return nil }
        let origin = Double(startTime) * timeBase
        let step = info.frameRate.map { 1 / $0 } ?? 0
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { return nil }
        var window = 8.0
        while true {
            let from = max(statedEnd - window, origin)
            // (A hostile header's length over a tiny time base is past Int64: not sought.)
            let target = (from / timeBase).rounded(.down)
            guard target.isFinite, abs(target) < 9e18,
                  av_seek_frame(format, streamIndex, Int64(target), AVSEEK_FLAG_BACKWARD) >= 0 else { return nil }
            var videoEnd = -Double.infinity
            while read(packet) >= 0 {
                defer { av_packet_unref(packet) }
                try deadline.check(path)
                let p = packet.pointee
                guard p.stream_index == streamIndex, p.flags & AV_PKT_FLAG_DISCARD == 0 else { continue }
                let time = p.pts != ck_av_nopts_value() ? p.pts : p.dts
                guard time != ck_av_nopts_value() else { continue }
                let end = Double(time) * timeBase + (p.duration > 0 ? Double(p.duration) * timeBase : step)
                if end.isFinite { videoEnd = max(videoEnd, end) }
            }
            if videoEnd > origin {
                let length = videoEnd - origin
                return shortfall(from: origin, reached: length) == nil ? length : nil
            }
            if from <= origin { return nil }
            window *= 4
        }
    }
}
