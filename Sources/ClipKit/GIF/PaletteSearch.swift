// Nearest-colour search over a palette, sorted by green so most entries are never looked at.

/// Finds the palette entry nearest to a colour under `Palette.distance`.
///
/// Entries are sorted by green (the heaviest weight); the scan walks outwards from the query's
/// green and stops in each direction once the green difference alone exceeds the best distance.
struct PaletteSearch {
    private var r: [Int32] = [], g: [Int32] = [], b: [Int32] = [], index: [UInt8] = []

    init(colors: [(Int, Int, Int)]) {
        let order = colors.indices.sorted { colors[$0].1 != colors[$1].1 ? colors[$0].1 < colors[$1].1 : $0 < $1 }
        for i in order {
            r.append(Int32(colors[i].0)); g.append(Int32(colors[i].1)); b.append(Int32(colors[i].2))
            index.append(UInt8(truncatingIfNeeded: i))
        }
    }

    init(palette: Palette) {
        self.init(colors: (0..<palette.count).map { let c = palette.color($0); return (Int(c.r), Int(c.g), Int(c.b)) })
    }

    /// The index (in the original order) of the nearest colour; ties go to the lower index.
    ///
    /// The hottest loop of a conversion, so it reads the sorted columns through unsafe buffers
    /// and uses wrapping arithmetic: indices stay within 0..<n by the loop conditions, and
    /// distances are at most 9 * 255^2, far inside Int32.
    @inline(__always)
    func nearest(_ qr: Int, _ qg: Int, _ qb: Int) -> Int {
        let n = g.count
        let rq = Int32(truncatingIfNeeded: qr), gq = Int32(truncatingIfNeeded: qg), bq = Int32(truncatingIfNeeded: qb)
        return g.withUnsafeBufferPointer { g in
            r.withUnsafeBufferPointer { r in
                b.withUnsafeBufferPointer { b in
                    index.withUnsafeBufferPointer { index in
                        // First entry with green >= qg.
                        var lo = 0, hi = n
                        while lo < hi {
                            let mid = (lo &+ hi) >> 1
                            if g[mid] < gq { lo = mid &+ 1 } else { hi = mid }
                        }
                        var best = Int32.max, bestIndex = 0
                        var up = lo, down = lo &- 1
                        while up < n || down >= 0 {
                            if up < n {
                                let dg = g[up] &- gq
                                if 4 &* dg &* dg > best { up = n } else {
                                    let dr = r[up] &- rq, db = b[up] &- bq
                                    let d = 3 &* dr &* dr &+ 4 &* dg &* dg &+ 2 &* db &* db
                                    if d < best || (d == best && Int(index[up]) < bestIndex) { best = d; bestIndex = Int(index[up]) }
                                    up &+= 1
                                }
                            }
                            if down >= 0 {
                                let dg = gq &- g[down]
                                if 4 &* dg &* dg > best { down = -1 } else {
                                    let dr = r[down] &- rq, db = b[down] &- bq
                                    let d = 3 &* dr &* dr &+ 4 &* dg &* dg &+ 2 &* db &* db
                                    if d < best || (d == best && Int(index[down]) < bestIndex) { best = d; bestIndex = Int(index[down]) }
                                    down &-= 1
                                }
                            }
                        }
                        return bestIndex
                    }
                }
            }
        }
    }
}
