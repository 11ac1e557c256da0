// Reads a WebVTT thumbnail track as a player does, independently of the code that writes it.
import Foundation

/// The cues of a WebVTT file whose payloads are `file#xywh=x,y,w,h` thumbnails.
public struct ThumbnailTrack {
    public struct Cue: Equatable {
        public var startMs: Int
        public var endMs: Int
        public var file: String
        public var x: Int, y: Int, width: Int, height: Int
    }

    public var cues: [Cue]

    public enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self { case .malformed(let why): return "malformed WebVTT: \(why)" }
        }
    }

    /// Parses the text: the `WEBVTT` signature line, then blocks separated by blank lines, each
    /// an optional identifier line, a `start --> end` timing line and one payload line.
    public init(text: String) throws {
        let lines = text.components(separatedBy: "\n")
        guard lines.first == "WEBVTT" else { throw Failure.malformed("no WEBVTT signature") }
        var cues: [Cue] = []
        var block: [String] = []
        for line in lines.dropFirst() + [""] {
            if !line.isEmpty { block.append(line); continue }
            guard !block.isEmpty else { continue }
            defer { block = [] }
            guard let timingIndex = block.firstIndex(where: { $0.contains("-->") }), timingIndex + 1 < block.count else {
                throw Failure.malformed("block without timing or payload: \(block)")
            }
            let ends = block[timingIndex].components(separatedBy: " --> ")
            guard ends.count == 2, let start = Self.milliseconds(ends[0]), let end = Self.milliseconds(ends[1]) else {
                throw Failure.malformed("bad timing line '\(block[timingIndex])'")
            }
            let payload = block[timingIndex + 1]
            let parts = payload.components(separatedBy: "#xywh=")
            let numbers = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Int($0) } : []
            guard parts.count == 2, numbers.count == 4, !parts[0].isEmpty else { throw Failure.malformed("bad payload '\(payload)'") }
            cues.append(Cue(startMs: start, endMs: end, file: parts[0], x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        }
        self.cues = cues
    }

    public init(contentsOf url: URL) throws {
        try self.init(text: String(decoding: try Data(contentsOf: url), as: UTF8.self))
    }

    /// `HH:MM:SS.mmm` in milliseconds (exactly that form: two-digit hours or more, three-digit fraction).
    public static func milliseconds(_ text: String) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count >= 2, fields[1].count == 2, fields[2].count == 6,
              let hours = Int(fields[0]), let minutes = Int(fields[1]), minutes < 60 else { return nil }
        let secondParts = fields[2].split(separator: ".")
        guard secondParts.count == 2, secondParts[1].count == 3, let seconds = Int(secondParts[0]), seconds < 60,
              let fraction = Int(secondParts[1]) else { return nil }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + fraction
    }

    /// Why the cues do not cover `0..<durationMs` exactly once, in order; nil when they do.
    public func coverageProblem(durationMs: Int) -> String? {
        var expected = 0
        for (i, cue) in cues.enumerated() {
            if cue.startMs != expected { return "cue \(i) starts at \(cue.startMs) ms, expected \(expected) (a gap or an overlap)" }
            if cue.endMs <= cue.startMs { return "cue \(i) is empty or backwards (\(cue.startMs)-\(cue.endMs))" }
            expected = cue.endMs
        }
        return expected == durationMs ? nil : "the last cue ends at \(expected) ms, not \(durationMs)"
    }
}
