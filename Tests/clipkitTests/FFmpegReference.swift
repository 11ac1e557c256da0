// Test support: an independent measurement of a GIF against its source with the ffmpeg command
// (as bench/quality.py does), to check the figures clipkit reports about its own output.
import Foundation

enum FFmpegReference {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Raw grey frames of `width` x `height` that ffmpeg gives for `arguments` (input and filters).
    static func grayFrames(_ arguments: [String], width: Int, height: Int) throws -> [[UInt8]] {
        guard let ffmpeg else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "ffmpeg"]) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin"] + arguments + ["-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let size = width * height
        return stride(from: 0, to: data.count - size + 1, by: size).map { [UInt8](data[$0..<($0 + size)]) }
    }

    /// The source on screen at each tick i/fps, scaled to the GIF's size (lanczos), as grey.
    static func sourceTicks(_ source: URL, fps: Int, width: Int, height: Int) throws -> [[UInt8]] {
        try grayFrames(["-i", source.path, "-vf", "fps=\(fps):round=up,scale=\(width):\(height):flags=lanczos,format=rgb24,format=gray"],
                       width: width, height: height)
    }

    /// The GIF's composited images as ffmpeg decodes them, one per image, as grey.
    static func gifImages(_ gif: URL, width: Int, height: Int) throws -> [[UInt8]] {
        try grayFrames(["-i", gif.path, "-fps_mode", "passthrough", "-vf", "format=rgb24,format=gray"], width: width, height: height)
    }

    /// Each image's stored delay (cs), read from the file's blocks.
    static func gifDelays(_ gif: URL) throws -> [Int] {
        let d = [UInt8](try Data(contentsOf: gif))
        var at = 13
        if d[10] & 0x80 != 0 { at += 3 << (Int(d[10] & 7) + 1) }
        var delays: [Int] = [], pending = 0
        while at < d.count {
            switch d[at] {
            case 0x21:
                let label = d[at + 1]
                at += 2
                var first = true
                while d[at] != 0 {
                    if label == 0xF9 && first { pending = Int(d[at + 2]) | Int(d[at + 3]) << 8 }
                    first = false
                    at += 1 + Int(d[at])
                }
                at += 1
            case 0x2C:
                let flags = d[at + 9]
                at += 10
                if flags & 0x80 != 0 { at += 3 << (Int(flags & 7) + 1) }
                at += 1
                while d[at] != 0 { at += 1 + Int(d[at]) }
                at += 1
                delays.append(pending)
                pending = 0
            default:
                return delays
            }
        }
        return delays
    }

    /// SSIM of two grey frames, written out window by window from its definition (8x8 windows
    /// on a 4-pixel grid, x264's constants), independent of clipkit's block-sum code.
    static func ssim(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
        let c1 = 0.01 * 0.01 * 255 * 255 * 64, c2 = 0.03 * 0.03 * 255 * 255 * 64 * 63
        var total = 0.0, windows = 0
        for y in stride(from: 0, through: height / 4 * 4 - 8, by: 4) {
            for x in stride(from: 0, through: width / 4 * 4 - 8, by: 4) {
                var s1 = 0.0, s2 = 0.0, ss = 0.0, s12 = 0.0
                for j in y..<(y + 8) {
                    for i in x..<(x + 8) {
                        let p = Double(a[j * width + i]), q = Double(b[j * width + i])
                        s1 += p; s2 += q; ss += p * p + q * q; s12 += p * q
                    }
                }
                let variance = ss * 64 - s1 * s1 - s2 * s2, covariance = s12 * 64 - s1 * s2
                total += (2 * s1 * s2 + c1.rounded()) * (2 * covariance + c2.rounded()) / ((s1 * s1 + s2 * s2 + c1.rounded()) * (variance + c2.rounded()))
                windows += 1
            }
        }
        return total / Double(windows)
    }

    /// The mean SSIM over the ticks of a GIF made at `fps`: at each tick's middle, the image on
    /// screen (by the stored delays) against the source frame of that tick (bench/quality.py's
    /// "up" figure).
    static func measure(gif: URL, source: URL, fps: Int, width: Int, height: Int) throws -> Double {
        let ticks = try sourceTicks(source, fps: fps, width: width, height: height)
        let images = try gifImages(gif, width: width, height: height)
        let delays = try gifDelays(gif)
        var starts: [Int] = [0]
        for delay in delays.dropLast() { starts.append(starts.last! + delay) }
        var total = 0.0, k = 0
        for (i, tick) in ticks.enumerated() {
            let t = (Double(i) + 0.5) * 100 / Double(fps)
            while k + 1 < min(images.count, starts.count) && Double(starts[k + 1]) <= t { k += 1 }
            total += ssim(images[k], tick, width: width, height: height)
        }
        return total / Double(ticks.count)
    }
}
