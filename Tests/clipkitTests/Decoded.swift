// Outputs decoded for the tests' checks: GIF delays and canvases, exploded frames, JSON lines.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

/// What decoding an output found.
enum Decoded {
    /// Every frame's delay, and the first `keep` canvases, of a GIF.
    static func gif(_ url: URL, keep: Int = 2) throws -> (delays: [Int], canvases: [RGBAImage]) {
        let animation = try GIFAnimation(url: url)
        var delays: [Int] = [], canvases: [RGBAImage] = []
        while let frame = try animation.next() {
            delays.append(frame.delay)
            if canvases.count < keep { canvases.append(frame.canvas) }
        }
        return (delays, canvases)
    }

    /// A PNG decoded in full, or only its header when it is larger than 40 Mpixel (the 10k canvas
    /// bomb's single frame would be 400 MB in the test process).
    @discardableResult
    static func png(_ url: URL) throws -> (width: Int, height: Int) {
        let (width, height) = try PNGReader.size(of: url)
        if width * height <= 40_000_000 {
            let image = try PNGReader.read(url)
            return (image.width, image.height)
        }
        return (width, height)
    }

    /// An explode directory's frames.json (as plain JSON: a manifest with a delay over 65535
    /// is allowed here, for `clipkit gif` to reject) and every PNG it lists, decoded.
    static func explode(_ directory: URL) throws -> (delays: [Int], files: [String]) {
        let data = try Data(contentsOf: directory.appendingPathComponent("frames.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(object["frames"] as? [[String: Any]])
        var delays: [Int] = [], files: [String] = []
        for frame in frames {
            let file = try #require(frame["file"] as? String)
            delays.append(try #require(frame["delay_cs"] as? Int))
            files.append(file)
            try png(directory.appendingPathComponent(file))
        }
        return (delays, files)
    }

    /// One JSON object per stdout line.
    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }
}
