// The outcome of one input in a batch, and its one-line JSON form for --json.
import ClipKit
import Foundation

/// What happened to one input.
struct Report: Sendable, Codable, Equatable {
    enum Status: String, Sendable, Codable { case ok, skipped, error }

    var input: String
    var outputs: [String]
    var status: Status
    /// The one-line error (status `error`) or why it was skipped.
    var message: String?
    var frames: Int?
    var durationMs: Int?
    var width: Int?
    var height: Int?
    /// Bytes written (all outputs together).
    var bytes: Int?
    /// Wall time spent on this input.
    var seconds: Double

    init(input: String, outputs: [String] = [], status: Status, message: String? = nil, frames: Int? = nil,
                durationMs: Int? = nil, width: Int? = nil, height: Int? = nil, bytes: Int? = nil, seconds: Double = 0) {
        self.input = input
        self.outputs = outputs
        self.status = status
        self.message = message
        self.frames = frames
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.bytes = bytes
        self.seconds = seconds
    }

    enum CodingKeys: String, CodingKey {
        case input, outputs, status, frames, width, height, bytes, seconds
        case message = "error"
        case durationMs = "duration_ms"
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(input, forKey: .input)
        try c.encode(outputs, forKey: .outputs)
        try c.encode(status, forKey: .status)
        // Every key is always present (null when unknown), so `jq` filters need no guards.
        try c.encode(message, forKey: .message)
        try c.encode(frames, forKey: .frames)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(bytes, forKey: .bytes)
        try c.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
    }

    /// One line of JSON with sorted keys.
    func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
