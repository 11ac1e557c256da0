// The decoded pictures `--max-bytes` passes share: the first pass records them, the passes after
// it scale them again instead of demuxing and decoding again.

/// The source pictures of one input's `--max-bytes` passes. The passes run the same decode
/// several times (each `--quality` level, then narrower pictures); decoding is most of a pass's
/// work on a short clip (a 3 s 1080p cut decodes 90 pictures for 30 frames), and the pictures are
/// the same every time. So the first pass of a video keeps its decoded pictures (`DecodedFrames`,
/// before scaling), decoding on to the end after its GIF stopped early, unless they pass `budget`
/// bytes (`Limits.maxMemory` / 5, at most 192 MiB, and 384 MiB for all inputs at once: memory is
/// bounded by the limits, never by the clip's length or the core count; a 3 s 1080p cut at 10 fps
/// takes about 100 MB, 10 s of 720p about 150 MB); the passes after it, at any
/// size, scale those pictures (`DecodedFramesReplay`) and open no decoder; the one right after
/// a pass that stopped early takes them over while that decode goes on (`FitDecode`). The frames are the
/// decoder's own, scaled the same way, so every pass writes the bytes it would have written
/// without the cache. GIF and PNG inputs are decoded by every pass, as before.
final class FrameCache: Sendable {
    /// Which pictures a recording holds: everything in `FrameReadOptions` that changes which
    /// source pictures are shown where (not the size: they are kept before scaling).
    struct Key: Equatable, Sendable {
        var start: Double
        var end: Double?
        var fps: Double?
        var speed: Double
        var maxFrames: Int?
        var keyframesOnly: Bool
        var skipsBetweenTicks: Bool

        init(_ read: FrameReadOptions) {
            start = read.start
            end = read.end
            fps = read.fps
            speed = read.speed
            maxFrames = read.maxFrames
            keyframesOnly = read.keyframesOnly
            skipsBetweenTicks = read.skipsBetweenTicks
        }
    }

    /// The complete recording and its key; out of the box while a pass replays it.
    private let kept = LockedBox<(key: Key, frames: DecodedFrames)?>(nil)
    /// Only the first pass records: a recording that passed the budget is not tried again.
    private let mayRecord = LockedBox(true)

    /// The most picture bytes one input keeps, whatever `--max-memory` allows.
    static let largestBudget = 192 << 20
    /// The most picture bytes all inputs converting at once keep (`--jobs`): memory does not grow
    /// with the core count. An input that finds the pool spent decodes every pass, which changes
    /// its time, never its bytes.
    static let poolSize = 384 << 20
    private static let pool = LockedBox(poolSize)

    let budget: Int
    /// Bytes this input took from the pool, given back when its passes are over.
    private let reserved = LockedBox(0)

    init(limits: Limits) {
        budget = min(limits.maxMemory / 5, Self.largestBudget)
    }

    deinit {
        let bytes = reserved.withLock { $0 }
        Self.pool.withLock { $0 += bytes }
    }

    /// The recorded pictures for `read`, taken out for one pass (given back by `keep`); nil when
    /// none were recorded for it.
    func take(for read: FrameReadOptions) -> sending DecodedFrames? {
        let key = Key(read)
        return kept.withLock { kept -> sending DecodedFrames? in
            guard kept?.key == key, let frames = kept.take()?.frames else { return nil }
            return frames
        }
    }

    /// A recording for a pass whose decode is expected to keep `count` pictures of about `bytes`
    /// each (`count` nil when unknown): only the first pass gets one, and only when they fit this
    /// input's budget and what the pool has left. Its budget is taken from the pool: the expected
    /// bytes and an eighth more (the decoder's padding, a count a little off), or the whole
    /// budget when the count is unknown.
    func recording(pictures count: Int?, of bytes: Int) -> sending DecodedFrames? {
        let granted = mayRecord.withLock { mayRecord -> Bool in
            defer { mayRecord = false }
            return mayRecord
        }
        guard granted else { return nil }
        var wanted = budget
        if let count {
            let (expected, overflow) = bytes.multipliedReportingOverflow(by: count)
            guard !overflow, expected <= budget else { return nil }
            wanted = min(budget, expected + expected / 8)
        }
        let taken = Self.pool.withLock { pool -> Bool in
            guard pool >= wanted else { return false }
            pool -= wanted
            return true
        }
        guard taken else { return nil }
        reserved.withLock { $0 += wanted }
        return DecodedFrames(budget: wanted)
    }

    /// Keeps `frames` (recorded, or replayed and given back) for the passes reading `read` after
    /// this one, when they are complete.
    func keep(_ frames: sending DecodedFrames, for read: FrameReadOptions) {
        guard frames.isComplete else { return }
        kept.store((Key(read), frames))
    }
}
