// PaletteSearch's pruned scan must find exactly what a brute-force scan finds, ties included.
import Testing
@testable import ClipKit

/// SplitMix64: a tiny seeded generator, so random cases are the same on every run and machine.
/// Each test owns its generator (no shared state between tests running in parallel).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random channel value in `range`.
    mutating func channel(_ range: ClosedRange<Int> = 0...255) -> Int {
        Int.random(in: range, using: &self)
    }
}

@Suite struct PaletteSearchTests {
    /// The reference: every entry compared under `Palette.distance` (the metric the search is
    /// documented to use), the first of equally near entries winning.
    func bruteForceNearest(_ colors: [(Int, Int, Int)], _ r: Int, _ g: Int, _ b: Int) -> Int {
        var best = Int.max, bestIndex = 0
        for i in colors.indices {
            let d = Palette.distance(r, g, b, colors[i].0, colors[i].1, colors[i].2)
            if d < best { best = d; bestIndex = i }
        }
        return bestIndex
    }

    /// Compares the search with brute force for `queries` random colours plus every palette
    /// colour and the cube's corners; returns the first mismatch, if any.
    func firstMismatch(_ colors: [(Int, Int, Int)], queries: Int, rng: inout SplitMix64) -> String? {
        let search = PaletteSearch(colors: colors)
        var probes = colors
        for r in [0, 255] { for g in [0, 255] { for b in [0, 255] { probes.append((r, g, b)) } } }
        for _ in 0..<queries { probes.append((rng.channel(), rng.channel(), rng.channel())) }
        for q in probes {
            let expected = bruteForceNearest(colors, q.0, q.1, q.2)
            let found = search.nearest(q.0, q.1, q.2)
            if found != expected {
                return "query \(q): search gave \(found) \(colors[found]), brute force \(expected) \(colors[expected])"
            }
        }
        return nil
    }

    @Test(arguments: [1, 2, 16, 255, 256])
    func matchesBruteForceOnRandomPalettes(size: Int) {
        var rng = SplitMix64(seed: 0xC11B_0000 + UInt64(size))
        for round in 0..<3 {
            let colors = (0..<size).map { _ in (rng.channel(), rng.channel(), rng.channel()) }
            let mismatch = firstMismatch(colors, queries: 4000, rng: &rng)
            #expect(mismatch == nil, "size \(size), round \(round): \(mismatch ?? "")")
        }
    }

    @Test(arguments: [2, 16, 255, 256])
    func matchesBruteForceWithTiesAndDuplicates(size: Int) {
        // Colours from a coarse grid in a narrow band: many entries share a green (the sort key),
        // many are duplicates and many queries are equally near two entries, so the scan's
        // stopping rule and the lower-index tie rule are both exercised.
        var rng = SplitMix64(seed: 0x7135 + UInt64(size))
        for round in 0..<3 {
            let colors = (0..<size).map { _ in (rng.channel(0...6) * 8 + 80, rng.channel(0...6) * 8 + 80, rng.channel(0...6) * 8 + 80) }
            let mismatch = firstMismatch(colors, queries: 4000, rng: &rng)
            #expect(mismatch == nil, "size \(size), round \(round): \(mismatch ?? "")")
            // Queries on the same grid land exactly between entries more often than random ones.
            let search = PaletteSearch(colors: colors)
            for _ in 0..<2000 {
                let q = (rng.channel(0...24) * 4 + 76, rng.channel(0...24) * 4 + 76, rng.channel(0...24) * 4 + 76)
                let expected = bruteForceNearest(colors, q.0, q.1, q.2)
                let found = search.nearest(q.0, q.1, q.2)
                if found != expected {
                    Issue.record("size \(size), query \(q): search gave \(found), brute force \(expected)")
                    return
                }
            }
        }
    }

    @Test func paletteInitKeepsPaletteOrder() {
        // init(palette:) reports indices into the palette, not into the green-sorted table.
        let palette = Palette(rgb: [200, 250, 0, 10, 5, 10, 90, 128, 90, 10, 5, 10])
        let search = PaletteSearch(palette: palette)
        #expect(search.nearest(201, 249, 1) == 0)
        #expect(search.nearest(0, 0, 0) == 1, "index 3 duplicates index 1: the lower index wins")
        #expect(search.nearest(100, 120, 100) == 2)
    }
}
