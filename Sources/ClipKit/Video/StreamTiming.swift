// Measures a video stream's real timing from its packets' timestamps, without decoding.
@_weakLinked import CFFmpeg
import Foundation

/// Frame count and frame rate as the timestamps say, which may differ from the headers.
public struct StreamTiming: Sendable, Equatable {
    public var frameCount: Int
    /// Frames per second from the first to the last timestamp; nil with fewer than two frames.
    public var measuredFrameRate: Double?
    /// True when the gaps between frames differ by more than 5% (variable frame rate), beyond
    /// the rounding of the container's timestamps (milliseconds in Matroska and WebM).
    public var isVariableFrameRate: Bool
    /// From the first timestamp to the end of the last packet, in seconds: the length when the
    /// header has none or an open-ended one. Nil without timestamps.
    public var duration: Double?

    /// Reads every packet of the video stream of `url` (no decoding), within `limits`' deadline.
    public static func measure(_ url: URL, limits: Limits = Limits()) throws -> StreamTiming {
        let demuxer = try Demuxer(url: url, maxPixels: limits.maxPixels, deadline: limits.deadline)
        let format = demuxer.format
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw ClipKitError.internalFailure(path: url.path, reason: "out of memory") }
        let timeBase = demuxer.stream.pointee.time_base.seconds
        var times: [Double] = []
        var count = 0
        var end = -Double.infinity
        while av_read_frame(format, packet) >= 0 {
            try limits.checkDeadline(url.path)
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == demuxer.streamIndex else { continue }
            count += 1
            if packet.pointee.pts != ck_av_nopts_value() {
                let time = Double(packet.pointee.pts) * timeBase
                times.append(time)
                end = max(end, time + Double(max(packet.pointee.duration, 0)) * timeBase)
            }
        }
        try limits.checkDeadline(url.path)
        times.sort()
        var rate: Double?
        var variable = false
        if times.count >= 2, let first = times.first, let last = times.last, last > first {
            rate = Double(times.count - 1) / (last - first)
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
            // 33 ms and 34 ms gaps are 30 fps in a millisecond time base, not a variable rate.
            let rounding = max(timeBase, 0.001) * 1.5
            if let small = gaps.min(), let large = gaps.max() { variable = large - small > max(small * 0.05, rounding) + 1e-9 }
        }
        let duration = times.first.map { max(end, times.last!) - $0 }
        return StreamTiming(frameCount: count, measuredFrameRate: rate, isVariableFrameRate: variable, duration: duration)
    }
}
