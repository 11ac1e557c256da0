// What one decode pass of FrameDecoder knows beside the decoder: whether it may be given up, where its seek must land, where it goes next.

/// The state of one pass of `FrameDecoder.decodePass(from:packet:frame:into:)`, set up from the
/// point it starts at, then read and changed by its packet loop and the frames it receives.
struct DecodePass {
    /// Started by a seek before the start: given up (before it queued anything) when the seek
    /// point was no place to start decoding, for a pass from an earlier point.
    let mayGiveUp: Bool
    /// From the beginning after the demuxer had moved: given up too when its first frame is
    /// later than the start or none decodes (the seek there landed late).
    let rewound: Bool
    var givenUp = false
    /// After a seek, the time the landing must reach, until the decoder gives its first intra picture.
    var landing: Double?
    var leading: LeadingPictures
    /// The packets left out at the start of a file that begins between keyframes.
    var lead: UndecodableLead
    /// The latest packet time at or before the start sent to the decoder: a decoder that drops
    /// a picture whose references were not decoded (H.264 past an open-GOP landing) would
    /// otherwise leave the frame before it on screen at the start.
    var latestSent: Double?
    /// Where to seek next to skip ahead (or, after a bad landing, to go back to); see `TickSkipper`.
    var relocation: SeekPlan.Point?

    /// A pass from `point`, made before its seek (which moves the demuxer).
    init(from point: SeekPlan.Point, start: Double, demuxerMoved: Bool, decodableStart: DecodableStart.Start?) {
        if case .before = point { mayGiveUp = true } else { mayGiveUp = false }
        rewound = point == .beginning && demuxerMoved
        landing = mayGiveUp ? start : nil
        leading = LeadingPictures(afterSeek: mayGiveUp)
        lead = UndecodableLead(decodableStart)
    }

    /// True when, before anything is queued, a picture sent for the start never came out: the
    /// candidate at `candidateTime` is older than the latest packet sent at or before the start.
    func missesSentFrame(candidateTime: Double, pushedCount: Int) -> Bool {
        guard mayGiveUp, pushedCount == 0, let latestSent else { return false }
        return latestSent > candidateTime + FrameSampler.epsilon
    }

    /// A seek landed where no clean chain reaches the target: the pass is given up (before
    /// anything is queued), or the skipper goes back to an earlier point.
    mutating func landingMissed(skipper: inout TickSkipper?, pushedCount: Int) {
        if skipper?.pendingTick != nil {
            relocation = skipper?.retryPoint()
        } else if mayGiveUp && pushedCount == 0 {
            givenUp = true
        }
        landing = nil
    }

    /// A decode error after the chain started: what follows may be built on a broken picture.
    mutating func chainBroken(pushedCount: Int) {
        if mayGiveUp && pushedCount == 0 { givenUp = true }
    }
}
