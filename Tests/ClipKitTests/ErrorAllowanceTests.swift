@testable import ClipKit
import Testing

@Suite struct ErrorAllowanceTests {
    /// The multiply-and-shift that stands for the lossy search's division gives the quotient
    /// the division gave, for every factor a pixel can have: all small distances, a spread of
    /// large ones (a fixed sequence), the edge of the exact range and past it (divided).
    @Test func scalingByAFactorIsTheDivision() {
        var distances = Array(0..<20_000)
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            distances.append(Int(x >> 40))  // below 2^24
        }
        distances += [(1 << 24) - 1, 1 << 24, (1 << 24) + 1, 123_456_789, 1 << 40]
        for factor in ErrorAllowance.lowest...ErrorAllowance.highest {
            let multiplier = ErrorAllowance.multipliers[factor]
            for distance in distances {
                let scaled = ErrorAllowance.scaled(distance, by: factor, multiplier: multiplier)
                if scaled != distance * ErrorAllowance.one / factor {
                    Issue.record("\(distance) * 16 / \(factor): \(scaled), not \(distance * ErrorAllowance.one / factor)")
                    return
                }
            }
        }
    }
}
