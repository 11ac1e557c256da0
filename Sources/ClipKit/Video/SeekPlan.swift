// Where decoding starts for a given start time, and where it retries when a seek point turns out bad.

/// The points a decode may start from, best first: the keyframe before the start, then ones
/// further back, finally the very beginning (what a full decode shows, always right).
struct SeekPlan {
    enum Point: Equatable {
        /// The keyframe at or before this many seconds from the stream start.
        case before(Double)
        case beginning
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
        points.append(.beginning)
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
