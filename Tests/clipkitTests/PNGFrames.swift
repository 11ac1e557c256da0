// PNG frames written for a test: opaque pictures coloured by a function of frame and position.
import Foundation
import ClipKit

enum PNGFrames {
    /// Writes `count` opaque `width` x `height` PNGs named `<prefix><i>.png` into `directory`,
    /// pixel (x, y) of frame i coloured `color(i, x, y)` (channels clamped to 0...255); returns
    /// their names in order.
    static func write(_ count: Int, width: Int, height: Int, in directory: URL, prefix: String = "f",
                      color: (Int, Int, Int) -> (Int, Int, Int)) throws -> [String] {
        try (0..<count).map { i in
            var image = RGBAImage(width: width, height: height)
            image.pixels.withUnsafeMutableBufferPointer { p in
                for y in 0..<height {
                    for x in 0..<width {
                        let c = color(i, x, y), at = (y * width + x) * 4
                        (p[at], p[at + 1], p[at + 2], p[at + 3]) = (UInt8(clamping: c.0), UInt8(clamping: c.1), UInt8(clamping: c.2), 255)
                    }
                }
            }
            let name = "\(prefix)\(i).png"
            try PNGWriter.write(image, to: directory.appendingPathComponent(name))
            return name
        }
    }
}
