// Progress on stderr: a live bar on a terminal, one summary line per file otherwise, nothing with --quiet.
import ClipKit
import Foundation

struct ProgressReporter: Sendable {
    let enabled: Bool
    let isTerminal: Bool

    /// `live` allows the redrawn bar (one file at a time on a terminal); otherwise each file
    /// gets one summary line when it is done.
    init(enabled: Bool, live: Bool = true) {
        self.enabled = enabled
        self.isTerminal = live && isatty(STDERR_FILENO) == 1
    }

    func callback(for name: String) -> (@Sendable (Int, Int?) -> Void)? {
        guard enabled && isTerminal else { return nil }
        let start = Date()
        return { done, total in
            let elapsed = Date().timeIntervalSince(start)
            var line = "\r\(InputRunner.oneLine(FileSystemPath.display(name))): \(done)"
            if let total, total > 0 {
                let fraction = min(1, Double(done) / Double(total))
                let filled = Int(fraction * 24)
                let eta = fraction > 0 ? elapsed / fraction - elapsed : 0
                line += "/\(total) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: 24 - filled) + "]"
                line += String(format: " %.1fs, ETA %.1fs ", elapsed, eta)
            } else {
                line += String(format: " frames %.1fs ", elapsed)
            }
            StandardError.write(line)
        }
    }

    /// The summary line of a GIF written, nil with progress off. Shown (`show`) only once the
    /// GIF is in place: a summary before a copy to standard output that fails claimed success.
    func summary(of result: GIFResult, seconds: Double) -> String? {
        var measured = ""
        if let ssim = result.ssim { measured += String(format: ", SSIM %.4f", ssim) }
        if let mean = result.ssimulacra2, let p5 = result.ssimulacra2P5 {
            measured += String(format: ", SSIMULACRA2 %.1f (5th percentile %.1f)", mean, p5)
        }
        if result.settings.lossy > 0 { measured += ", lossy \(result.settings.lossy)" }
        switch (result.loweredLossy, result.raisedLossy) {
        case let (low?, high?): measured += " (\(low)-\(high) on later frames)"
        case let (low?, nil): measured += " (down to \(low) on later frames)"
        case let (nil, high?): measured += " (up to \(high) on later frames)"
        case (nil, nil): break
        }
        if result.settings.colors < 256 { measured += ", \(result.settings.colors) colours" }
        return summary(result.url, frames: result.frameCount, duration: Double(result.durationCentiseconds) / 100,
                       width: result.width, height: result.height, bytes: result.bytes, extra: measured, seconds: seconds)
    }

    /// The summary line of a WebP or MP4 written, nil with progress off.
    func summary(of result: AnimationResult, seconds: Double) -> String? {
        summary(result.url, frames: result.frameCount, duration: Double(result.durationMilliseconds) / 1000,
                width: result.width, height: result.height, bytes: result.bytes, extra: "", seconds: seconds)
    }

    /// Prints summary lines on stderr.
    static func show(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        StandardError.write(lines.joined())
    }

    /// The one summary line of an output written, its newline included (and, on a terminal, what
    /// clears the live bar first).
    private func summary(_ url: URL, frames: Int, duration: Double, width: Int, height: Int, bytes: Int, extra: String,
                         seconds: Double) -> String? {
        guard enabled else { return nil }
        let line = String(format: "%@: %d frames, %.2fs, %dx%d, %@%@, %.2fs\n",
                          InputRunner.oneLine(FileSystemPath.display(StandardStreams.shown(url.path))), frames, duration, width, height, Self.bytes(bytes), extra, seconds)
        return (isTerminal ? "\r\u{1B}[K" : "") + line
    }

    static func bytes(_ count: Int) -> String {
        count >= 1 << 20 ? String(format: "%.2f MB", Double(count) / 1_048_576)
            : count >= 1024 ? String(format: "%.1f KB", Double(count) / 1024) : "\(count) B"
    }
}
