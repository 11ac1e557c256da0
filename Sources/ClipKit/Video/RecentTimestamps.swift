// The timestamps of the last packets read, for bounding how long a frame can be on screen.

/// The presentation timestamps of the last `capacity` packets read, in decode order. A frame is
/// on screen until the next one in presentation order, which is no later than any later
/// timestamp among them: a B-frame's references (up to 16 B-frames apart in H.264) are read
/// before it. Fixed storage, no allocation per packet.
struct RecentTimestamps {
    static let capacity = 32
    private var times = [Int64](repeating: 0, count: capacity)
    private var count = 0
    private var next = 0

    /// Records a packet's timestamp, forgetting the oldest past `capacity`.
    mutating func note(_ pts: Int64) {
        times[next] = pts
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// The earliest recorded timestamp after `pts`, or nil when none is.
    func earliest(after pts: Int64) -> Int64? {
        var best: Int64?
        for i in 0..<count where times[i] > pts && times[i] < (best ?? .max) {
            best = times[i]
        }
        return best
    }
}
