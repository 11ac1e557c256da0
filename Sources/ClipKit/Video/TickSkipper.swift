// Sparse fps sampling (storyboards): seeks over the stretches of a clip that no tick can show instead of decoding them.
@_weakLinked import CFFmpeg

/// Decides when a decode sampling by fps jumps ahead. With ticks seconds apart (a tile every 6 s)
/// and keyframes closer than that, most frames are on screen at no tick and cannot be needed to
/// decode the ones that are: everything before the keyframe that precedes the next tick. When the
/// container's index shows that keyframe well past what has been read, the decoder seeks to it
/// (`FrameDecoder`) and decodes forward from there to the tick.
///
/// Only the index says where keyframes are (MP4, MOV, Matroska and WebM with cues); streams
/// without one (MPEG-TS, raw) are decoded whole, as without skipping. A jump is checked by the
/// first frame of its clean chain (`FrameDecoder` drops what comes before the decoder's first
/// intra picture): damaged, or later than the tick, means the landing was wrong (a
/// "keyframe" that needs earlier frames, an index of decode times that reorders past the tick),
/// and the decoder retries from earlier points as `SeekPlan` lists them, finally from the
/// beginning with skipping off (the file opened again when a seek there lands late too). The
/// sampler keeps its place through all of this, so no tick is given twice or from a frame
/// decoded after a bad landing.
struct TickSkipper {
    /// Its stream is asked for at each use: `Demuxer.reopen()` replaces it.
    private let demuxer: Demuxer
    private let timeBase: Double
    private let origin: Int64
    /// Jump only when the keyframe before the next tick lies at least this far (seconds) past the
    /// last packet read: a shorter jump saves less than flushing the decoder's frame threads costs.
    static let minimumGap = 1.0
    /// The decode timestamp (presentation when there is none) of the last packet read, in stream units.
    private var lastRead: Int64?
    /// The tick the last jump went to, until the first frame after it confirms the landing.
    private(set) var pendingTick: Double?
    /// The points to decode the pending tick from, best first.
    private var plan: SeekPlan?
    /// The last tick jumped to: each tick is jumped to once at most, so a seek that lands
    /// earlier than the index promised cannot start a loop.
    private var lastJumpTick = -Double.infinity
    /// After a jump that landed wrong, no more are tried.
    private(set) var isDisabled = false

    init(demuxer: Demuxer, origin: Int64) {
        self.demuxer = demuxer
        self.origin = origin
        timeBase = demuxer.stream.pointee.time_base.seconds
    }

    /// Records a packet of the stream as read.
    mutating func noteRead(_ packet: AVPacket) {
        let stamp = packet.dts != ck_av_nopts_value() ? packet.dts : packet.pts
        if stamp != ck_av_nopts_value() { lastRead = max(lastRead ?? stamp, stamp) }
    }

    /// Whether to seek to `tick` (seconds from the stream start) rather than read on: the index
    /// has a keyframe at or before it, `minimumGap` or more past the last packet read.
    func shouldJump(to tick: Double) -> Bool {
        guard !isDisabled, pendingTick == nil, tick > lastJumpTick, let lastRead, timeBase > 0, tick >= 0, tick / timeBase < 4e18 else {
            return false
        }
        let target = origin &+ Int64(tick / timeBase)
        let stream = demuxer.stream
        let index = av_index_search_timestamp(stream, target, AVSEEK_FLAG_BACKWARD)
        guard index >= 0, let entry = avformat_index_get_entry(stream, index) else { return false }
        return Double(entry.pointee.timestamp &- lastRead) * timeBase >= Self.minimumGap
    }

    /// Where to seek to reach `tick`: the keyframe before it. Its landing is judged by `accepts`.
    mutating func jump(to tick: Double) -> SeekPlan.Point {
        plan = SeekPlan(start: tick)
        pendingTick = tick
        lastJumpTick = tick
        lastRead = nil
        return plan!.point
    }

    /// Judges a frame decoded after a jump: false when the jump landed wrong (the frame is
    /// damaged, or later than the tick, so the tick's frame was passed over); `retryPoint()`
    /// then says where to go instead.
    mutating func accepts(frameTime: Double, damaged: Bool) -> Bool {
        guard let tick = pendingTick else { return true }
        if damaged || frameTime > tick + FrameSampler.epsilon { return false }
        pendingTick = nil
        plan = nil
        return true
    }

    /// After a bad landing (or a failed seek), the next earlier point to decode the pending tick
    /// from: a few seconds further back, then the beginning, after which skipping stops. The
    /// beginning's landing is judged too (a seek there can land late); after it the file is
    /// opened again, and nothing more is judged. Nil when that has been done.
    mutating func retryPoint() -> SeekPlan.Point? {
        guard var plan, plan.advance() else { return nil }
        self.plan = plan
        lastRead = nil
        switch plan.point {
        case .before: break
        case .beginning: isDisabled = true
        case .reopened: pendingTick = nil
        }
        return plan.point
    }
}
