// Where decoding starts for a given start time, and where it retries when a seek point turns out bad.

/// The points a decode may start from, best first: the keyframe before the start, then ones
/// further back, then the very beginning, and last the file opened again (what a full decode
/// shows, always right).
struct SeekPlan {
    enum Point: Equatable {
        /// The keyframe at or before this many seconds from the stream start.
        case before(Double)
        /// The first packet, by a seek (none when nothing was read yet). A seek there goes by the
        /// container's index, and can land late as any other.
        case beginning
        /// The first packet of the file opened again: the one rewind that cannot land late, for
        /// when a seek to the beginning did (`Demuxer.reopen()`).
        case reopened
    }

    /// Seconds before the start to try after the start itself fails: a few GOPs, then more.
    static let backoffs: [Double] = [0, 3, 15]

    private let points: [Point]
    private var index = 0

    init(start: Double) {
        var points: [Point] = []
        if start > 0 {
            for backoff in Self.backoffs where start - backoff > 0 { points.append(.before(start - backoff)) }
        }
        points += [.beginning, .reopened]
        self.points = points
    }

    var point: Point { points[index] }

    /// Moves to the next, earlier point; false when there is none.
    mutating func advance() -> Bool {
        guard index + 1 < points.count else { return false }
        index += 1
        return true
    }
}
