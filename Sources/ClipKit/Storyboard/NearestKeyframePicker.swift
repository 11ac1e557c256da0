// `--keyframes`: gives each tile time the decoded keyframe nearest to it, deciding as soon as a later keyframe shows which is nearer.

/// Fed the keyframes of a clip in time order, hands out each tile's frame as soon as it is
/// decided: the keyframe nearest to the tile's time (the earlier one on a tie). A tile's choice is
/// final once a keyframe at or after its time has been seen; tiles after the last keyframe get
/// that one (`finish()`). Holds one frame: the last keyframe seen.
struct NearestKeyframePicker {
    let schedule: TileSchedule
    /// The next tile to decide.
    private(set) var next = 0
    private var previous: VideoFrame?

    init(schedule: TileSchedule) {
        self.schedule = schedule
    }

    /// True once every tile is decided: later keyframes cannot change anything.
    var isDone: Bool { next >= schedule.count }

    /// The tiles `keyframe` (later than every earlier one offered) decides, in order, each with
    /// its frame.
    mutating func offer(_ keyframe: VideoFrame) -> [(tile: Int, frame: VideoFrame)] {
        var decided: [(tile: Int, frame: VideoFrame)] = []
        while next < schedule.count {
            let time = schedule.time(next)
            if let previous, time - previous.time <= keyframe.time - time + FrameSampler.epsilon {
                decided.append((next, previous))
            } else if keyframe.time >= time - FrameSampler.epsilon {
                decided.append((next, keyframe))
            } else {
                break
            }
            next += 1
        }
        previous = keyframe
        return decided
    }

    /// The tiles left when no keyframe follows, all given the last one, as long as their time lies
    /// before `end` (seconds): a clip whose frames stop early gets no tiles past its end.
    mutating func finish(end: Double) -> [(tile: Int, frame: VideoFrame)] {
        guard let previous else { return [] }
        var decided: [(tile: Int, frame: VideoFrame)] = []
        while next < schedule.count, next == 0 || TileSchedule.milliseconds(schedule.time(next)) < TileSchedule.milliseconds(end) {
            decided.append((next, previous))
            next += 1
        }
        return decided
    }
}
