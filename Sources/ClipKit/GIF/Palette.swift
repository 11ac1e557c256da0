// A GIF colour table: up to 256 RGB colours, and the perceptual distance used to compare colours.

/// Up to 256 opaque RGB colours.
public struct Palette: Sendable, Equatable {
    /// RGB triples.
    public private(set) var rgb: [UInt8]

    public init(rgb: [UInt8]) {
        precondition(rgb.count % 3 == 0 && rgb.count <= 768, "a palette holds at most 256 RGB triples")
        self.rgb = rgb
    }

    public var count: Int { rgb.count / 3 }

    public func color(_ index: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        (rgb[index * 3], rgb[index * 3 + 1], rgb[index * 3 + 2])
    }

    /// Perceptual weights for squared channel differences: the eye is most sensitive to green
    /// and least to blue (the common 3:4:2 approximation).
    @inline(__always)
    static func distance(_ r1: Int, _ g1: Int, _ b1: Int, _ r2: Int, _ g2: Int, _ b2: Int) -> Int {
        // Channels are 0...255: wrapping arithmetic cannot wrap, and spares the overflow checks
        // in the per-pixel loops that call this.
        let dr = r1 &- r2, dg = g1 &- g2, db = b1 &- b2
        return 3 &* dr &* dr &+ 4 &* dg &* dg &+ 2 &* db &* db
    }
}
