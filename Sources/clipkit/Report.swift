// The outcome of one input in a batch, and its one-line JSON form for --json.
import ClipKit
import Foundation

/// What happened to one input.
struct Report: Sendable, Equatable {
    enum Status: String, Sendable { case ok, skipped, error }

    /// The version of the JSON objects' fields (README, "JSON reports"); raised when a field
    /// changes meaning or goes away.
    static let schema = 1

    var input: String
    var outputs: [String]
    var status: Status
    /// The one-line error (status `error`).
    var error: String?
    /// Why the input was skipped (status `skipped`): "up to date".
    var reason: String?
    /// The `--shard` this run processed.
    var shard: String?
    var frames: Int?
    var durationMs: Int?
    var width: Int?
    var height: Int?
    /// Bytes written (all outputs together).
    var bytes: Int?
    /// Wall time spent on this input.
    var seconds: Double
    /// `gif --measure`: the mean luma SSIM against the source (4 decimals).
    var ssim: Double?
    /// `gif --measure`: the mean SSIMULACRA2 (0-100) over the ticks scored, and its 5th
    /// percentile (2 decimals).
    var ssimulacra2: Double?
    var ssimulacra2P5: Double?
    /// `gif`: the GIF's length minus the converted stretch's, in milliseconds.
    var durationErrorMs: Int?
    /// `gif`: the size settings written with (for --max-bytes, the ones chosen): lossy, colors, threshold.
    var settings: [String: Int]?
    /// `thumb --pick best`: the chosen frames, best first (null otherwise).
    var picks: [Pick]?
    /// What the input was read around (damage, a file cut short), as printed on stderr.
    var warnings: [String] = []
    /// The summary lines for stderr (`gif`: one per output), shown once the outputs are in
    /// place (standard output's too); not part of the JSON.
    var summary: [String] = []

    /// One frame `thumb --pick best` chose, and the file it went to.
    struct Pick: Sendable, Equatable {
        var output: String
        var score: FrameScore

        /// Its JSON object: the time rounded up to the millisecond (still within the frame, so
        /// `--at TIME` gives the same frame), the score and its parts to four decimals.
        var json: [String: Any] {
            func rounded(_ value: Double) -> Double { (value * 10000).rounded() / 10000 }
            let milliseconds = max((score.time * 1000 - 1e-6).rounded(.up), 0)  // (never -0)
            let fields: [String: Any] = ["time": milliseconds / 1000, "score": rounded(score.score),
                    "sharpness": rounded(score.sharpness), "detail": rounded(score.detail),
                    "colourfulness": rounded(score.colourfulness), "stability": rounded(score.stability), "blank": score.isBlank]
            return fields.merging(FileSystemPath.jsonFields("output", output)) { first, _ in first }
        }
    }

    init(input: String, outputs: [String] = [], status: Status, error: String? = nil, reason: String? = nil, frames: Int? = nil,
         durationMs: Int? = nil, width: Int? = nil, height: Int? = nil, bytes: Int? = nil, seconds: Double = 0) {
        self.input = input
        self.outputs = outputs
        self.status = status
        self.error = error
        self.reason = reason
        self.frames = frames
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.bytes = bytes
        self.seconds = seconds
    }

    /// One line of JSON, keys sorted; every key is always present (null when unknown), so `jq`
    /// filters need no guards. A path that is not UTF-8 adds `input_bytes` or `outputs_bytes`
    /// (`FileSystemPath.jsonFields`); messages show its bytes as `\xFF`.
    func jsonLine() -> String {
        var fields: [String: Any] = [
            "schema": Self.schema, "status": status.rawValue,
            "error": error.map(FileSystemPath.display) ?? NSNull(), "reason": reason ?? NSNull(), "shard": shard ?? NSNull(),
            "frames": frames ?? NSNull(), "duration_ms": durationMs ?? NSNull(), "width": width ?? NSNull(),
            "height": height ?? NSNull(), "bytes": bytes ?? NSNull(), "seconds": (seconds * 1000).rounded() / 1000,
            "ssim": ssim ?? NSNull(), "ssimulacra2": ssimulacra2 ?? NSNull(), "ssimulacra2_p5": ssimulacra2P5 ?? NSNull(),
            "duration_error_ms": durationErrorMs ?? NSNull(), "settings": settings ?? NSNull(),
            "picks": picks.map { $0.map(\.json) } ?? NSNull(), "warnings": warnings.map(FileSystemPath.display),
        ]
        fields.merge(FileSystemPath.jsonFields("input", input)) { first, _ in first }
        fields.merge(FileSystemPath.jsonFields("outputs", outputs)) { first, _ in first }
        return Self.jsonLine(fields)
    }

    /// `fields` as one line of JSON with sorted keys.
    static func jsonLine(_ fields: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
