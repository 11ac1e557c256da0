// Chooses poster frames: scores keyframes (or sampled frames) at a small size and picks the best, distinct ones.
import Foundation

/// Chooses the frames of a clip that make the best posters: not black, white or blank, sharp,
/// detailed, colourful and away from fades and cuts (`FrameScore`), and, for several posters,
/// spread across the clip and visibly different.
///
/// 1. Candidates: the keyframes of the clip (or of its first `within` seconds; of a clip longer
///    than `limits.maxDuration`, of that much), decoded alone
///    (`FrameReadOptions.keyframesOnly`, FFmpeg's AVDISCARD_NONKEY) and scaled to about 160 px,
///    at most about `candidateTarget` of them spread evenly. When there are fewer than 4
///    keyframes (or fewer than twice `count`), or one gap between them is over half the span, the
///    decoded frames are sampled at evenly spaced times instead: a clip with one keyframe is then
///    decoded once.
/// 2. Each candidate is scored (`FrameScore`); stability compares it with the candidates next
///    to it.
/// 3. The best is taken; with `count` over 1, the next best that are at least span / (2 count)
///    seconds from every pick and differ visibly from each (signature difference of at least
///    0.03), then, if that is not enough, any that differ visibly. Blank frames are never extra
///    posters. Fewer than `count` come back when the clip has fewer distinct frames.
/// 4. Refinement (keyframe candidates only): the frames in the half second after each picked
///    keyframe are decoded (at most 8; cheap, decoding starts at that keyframe) and scored, now
///    with neighbours a frame apart for stability; the best replaces the keyframe when it scores
///    at least 5% more. A keyframe that opens a flash, a fade or a blurred pan gives way to a
///    steadier, sharper frame; on even footage the keyframe stays (often the sharpest anyway:
///    encoders give keyframes more bits).
///
/// The result is deterministic: decoding and scoring do not depend on timing or threads, and
/// ties go to the earlier frame.
public struct PosterPicker: Sendable {
    /// Raised when the scoring or choosing changes which frames are picked: it is part of a
    /// `.best` thumbnail's fingerprint, so such outputs are made again.
    public static let version = 1
    /// The size candidates are scored at.
    static let analysisSize = FrameSize.fit(width: 160, height: 160)
    /// About how many candidates are scored (more with a large `count`).
    static let candidateTarget = 100
    static let minimumKeyframes = 4
    /// Neighbours closer than this (seconds) count for stability.
    static let stabilityReach = 1.0
    /// Signature difference under which two frames are near-duplicates.
    static let minimumDifference = 0.03
    static let refineSpan = 0.5
    static let refineFrames = 8
    /// How much better (as a factor of the score) a frame after the picked keyframe must be to replace it.
    static let refineGain = 1.05

    public var options: ThumbnailOptions

    /// `options.count` and `options.within` say how many posters and where; `options.limits`
    /// bounds the work. `position` and `size` play no part in the choice.
    public init(options: ThumbnailOptions = ThumbnailOptions(pick: .best)) {
        self.options = options
    }

    /// The chosen frames, best first: at most `options.count`, at least one.
    public func pick(in url: URL) throws -> [FrameScore] {
        try pick(in: url, limits: options.limits.started()).picks
    }

    /// `pick(in:)` under limits already started, with the damage the decode went around.
    func pick(in url: URL, limits: Limits) throws -> (picks: [FrameScore], warnings: [String]) {
        try options.validate()
        let path = url.path
        let reader = try VideoReader(url: url, limits: limits, fullProbe: false)
        let info = reader.info
        try Thumbnailer.checkMemory(for: info, size: Self.analysisSize, limits: limits, path: path)
        try limits.checkFrames(options.count, path: path)

        // (A stream starting before zero, or a header length that may be the audio's: the video's
        // own length, `StreamTiming.clipDuration`.)
        let length = info.startsBeforeZero || info.lengthMayRunPastVideo
            ? try StreamTiming.clipDuration(of: url, info: info, limits: limits) : info.duration
        let duration = length.flatMap { $0 > 0 ? $0 : nil }
        // The whole clip by default, but no more of it than --max-duration allows (a clip whose
        // header has no length may be that long too).
        var end = options.within
        if end == nil && (duration ?? .infinity) > limits.maxDuration { end = limits.maxDuration }
        // The length candidates are spread over; a minute when the header does not say.
        let span = duration.map { min(end ?? $0, $0) } ?? options.within ?? 60
        let target = max(Self.candidateTarget, 8 * options.count)
        let rate = Double(target) / max(span, 0.001)

        var warnings: [String] = []
        var frames: [FrameFeatures] = []
        do {
            frames = try candidates(reader, end: end, keyframesOnly: true, rate: rate, limits: limits, warnings: &warnings)
        } catch let error as ClipKitError where Self.isDecodeFailure(error) {
            // No frame flagged as a keyframe decoded: sampling below finds the frames there are.
        }
        var fromKeyframes = true
        // (A GIF's frames are all keyframes: the first pass saw every one there is to see.)
        if info.container != "gif" && needsSampling(frames, span: span) {
            do {
                var sampledWarnings: [String] = []
                let sampled = try candidates(reader, end: end, keyframesOnly: false, rate: rate, limits: limits, warnings: &sampledWarnings)
                if sampled.count > frames.count {
                    frames = sampled
                    warnings = sampledWarnings
                    fromKeyframes = false
                }
            } catch let error as ClipKitError where Self.isDecodeFailure(error) && !frames.isEmpty {
                // Damage past the keyframes: keep what the keyframes gave.
            }
        }
        guard !frames.isEmpty else { throw ClipKitError.noFrames(path: path, reason: "nothing decoded") }

        let scores = FrameScore.scoring(frames, reach: Self.stabilityReach)
        var picks = Self.choose(scores, frames: frames, count: options.count, span: span)
        if fromKeyframes && info.container != "gif" {
            for (n, pick) in picks.enumerated() {
                // Frames right after this one were candidates already.
                if let next = frames.first(where: { $0.time > pick.time }), next.time - pick.time <= Self.refineSpan { continue }
                guard let refined = try refine(pick, end: end, reader: reader, limits: limits) else { continue }
                // Two picks a fraction of a second apart must not become one frame.
                if !picks.contains(where: { abs($0.time - refined.time) < FrameSampler.epsilon }) || refined.time == pick.time {
                    picks[n] = refined
                }
            }
        }
        return (picks, warnings)
    }

    /// The candidates of one pass: keyframes only, or decoded frames sampled at `rate` a second.
    private func candidates(_ reader: VideoReader, end: Double?, keyframesOnly: Bool, rate: Double, limits: Limits,
                            warnings: inout [String]) throws -> [FrameFeatures] {
        var frames: [FrameFeatures] = []
        warnings = try measure(reader, FrameReadOptions(end: end, fps: rate, keyframesOnly: keyframesOnly), limits: limits, into: &frames)
        return frames
    }

    /// Measures the frames `read` gives at the analysis size, into `frames` (which keeps those
    /// measured before a failure), and returns the damage the decode went around. A frame on
    /// screen at several ticks (a keyframe seconds before the next) is measured once.
    private func measure(_ reader: VideoReader, _ read: FrameReadOptions, limits: Limits, into frames: inout [FrameFeatures]) throws -> [String] {
        var read = read
        read.size = Self.analysisSize
        read.limits = limits
        read.queueCapacity = 2
        let sequence = try reader.frames(options: read)
        defer { sequence.cancel() }
        while let frame = try sequence.next() {
            try limits.checkDeadline(reader.url.path)
            if let last = frames.last, abs(last.time - frame.sourceTime) < FrameSampler.epsilon { continue }
            frames.append(FrameFeatures(image: frame.image, time: frame.sourceTime))
        }
        return sequence.warnings
    }

    /// Keyframes are too few, or too unevenly spread, to stand for the clip.
    private func needsSampling(_ frames: [FrameFeatures], span: Double) -> Bool {
        guard frames.count >= max(Self.minimumKeyframes, 2 * options.count) else { return true }
        var largestGap = frames[0].time
        for (a, b) in zip(frames, frames.dropFirst()) { largestGap = max(largestGap, b.time - a.time) }
        if span.isFinite { largestGap = max(largestGap, span - frames[frames.count - 1].time) }
        return largestGap > span / 2
    }

    /// The best frame of the decoded frames from `pick` on, or nil when none decoded.
    private func refine(_ pick: FrameScore, end: Double?, reader: VideoReader, limits: Limits) throws -> FrameScore? {
        let stop = min(pick.time + Self.refineSpan, end ?? .infinity)
        guard stop > pick.time else { return nil }
        var frames: [FrameFeatures] = []
        do {
            _ = try measure(reader, FrameReadOptions(start: pick.time, end: stop, maxFrames: Self.refineFrames), limits: limits, into: &frames)
        } catch let error as ClipKitError where Self.isDecodeFailure(error) {
            // The picked keyframe decoded before; damage after it only ends the refinement early.
        }
        let scores = FrameScore.scoring(frames, reach: Self.stabilityReach)
        guard let best = scores.min(by: FrameScore.isBetter) else { return nil }
        // The keyframe stays unless a later frame is clearly better: a move that gains less is
        // noise, and costs decoding up to that frame again when the poster is taken.
        if let keyframe = scores.first(where: { abs($0.time - pick.time) < FrameSampler.epsilon }),
           best.score < keyframe.score * Self.refineGain {
            return keyframe
        }
        return best
    }

    /// The best frame, then (for `count` over 1) the best of the rest that are far enough in time
    /// and different enough from every pick; then, if that is not enough, different enough.
    static func choose(_ scores: [FrameScore], frames: [FrameFeatures], count: Int, span: Double) -> [FrameScore] {
        let order = scores.indices.sorted { FrameScore.isBetter(scores[$0], than: scores[$1]) }
        var chosen = [order[0]]
        let separation = span.isFinite ? span / Double(2 * count) : 0
        for apart in [separation, 0] {
            for i in order where chosen.count < count && !chosen.contains(i) && !scores[i].isBlank {
                let fits = chosen.allSatisfy { j in
                    abs(scores[i].time - scores[j].time) >= apart - FrameSampler.epsilon
                        && frames[i].difference(from: frames[j]) >= minimumDifference
                }
                if fits { chosen.append(i) }
            }
        }
        return chosen.map { scores[$0] }
    }

    /// Damage or a range without frames: what a pass can end in without anything else being wrong.
    static func isDecodeFailure(_ error: ClipKitError) -> Bool {
        switch error {
        case .corrupt, .noFrames, .startPastEnd: return true
        default: return false
        }
    }
}

extension PosterPicker {
    /// `pick(in:)` without blocking the caller's task.
    public func pick(in url: URL) async throws -> [FrameScore] {
        let picker = self
        return try await runOnThread("ck.pick") { try picker.pick(in: url) }
    }
}
