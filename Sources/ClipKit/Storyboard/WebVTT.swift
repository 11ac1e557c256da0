// The WebVTT thumbnail track players read: one cue per tile, its payload the sheet and the tile's rectangle.
import Foundation

/// A WebVTT file of thumbnail cues, the format video.js, Vidstack, Plyr and JW Player read for
/// scrub-bar previews:
///
///     WEBVTT
///
///     00:00:00.000 --> 00:00:06.000
///     sheet_0.jpg#xywh=0,0,160,90
///
/// Each payload is a URL relative to the `.vtt` file with a media fragment (`#xywh=x,y,w,h`,
/// pixels) naming the tile's rectangle on its sheet.
public enum WebVTT {
    /// One cue: a time range in milliseconds and its payload line.
    public struct Cue: Sendable, Equatable {
        public var startMs: Int
        public var endMs: Int
        public var payload: String

        public init(startMs: Int, endMs: Int, payload: String) {
            self.startMs = startMs
            self.endMs = endMs
            self.payload = payload
        }
    }

    /// The file's text: the header, then each cue after a blank line; lines end with `\n`.
    public static func text(_ cues: [Cue]) -> String {
        var text = "WEBVTT\n"
        for cue in cues {
            text += "\n\(timestamp(cue.startMs)) --> \(timestamp(cue.endMs))\n\(cue.payload)\n"
        }
        return text
    }

    /// The payload of a thumbnail cue: `file#xywh=x,y,w,h`.
    public static func thumbnail(file: String, x: Int, y: Int, width: Int, height: Int) -> String {
        "\(file)#xywh=\(x),\(y),\(width),\(height)"
    }

    /// `HH:MM:SS.mmm` (hours two digits or more), as WebVTT's cue timings write it.
    public static func timestamp(_ milliseconds: Int) -> String {
        let ms = max(milliseconds, 0)
        let hours = ms / 3_600_000, minutes = ms / 60_000 % 60, seconds = ms / 1000 % 60, fraction = ms % 1000
        func pad(_ value: Int, _ digits: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(fraction, 3))"
    }

    /// The cues of a WebVTT file's text: each block with a `-->` timing line. Nil when the text
    /// does not start with the `WEBVTT` signature or a timing cannot be read.
    public static func parse(_ text: String) -> [Cue]? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        guard let first = lines.first, first == "WEBVTT" || first.hasPrefix("WEBVTT ") || first.hasPrefix("WEBVTT\t") else { return nil }
        lines.removeFirst()
        var cues: [Cue] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard line.contains("-->") else { continue }
            let parts = line.components(separatedBy: "-->").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let start = milliseconds(parts[0]),
                  let end = milliseconds(String(parts[1].split(separator: " ").first ?? "")) else { return nil }
            var payload: [Substring] = []
            while index < lines.count, !lines[index].isEmpty {
                payload.append(lines[index])
                index += 1
            }
            cues.append(Cue(startMs: start, endMs: end, payload: payload.joined(separator: "\n")))
        }
        return cues
    }

    /// Milliseconds of `[HH:]MM:SS.mmm`; nil when malformed.
    static func milliseconds(_ text: String) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), let last = fields.last else { return nil }
        let secondParts = last.split(separator: ".", omittingEmptySubsequences: false)
        guard secondParts.count == 2, secondParts[0].count == 2, secondParts[1].count == 3,
              let seconds = Int(secondParts[0]), let fraction = Int(secondParts[1]), seconds < 60 else { return nil }
        var total = seconds * 1000 + fraction
        let minutesField = fields[fields.count - 2]
        guard minutesField.count == 2, let minutes = Int(minutesField), minutes < 60 else { return nil }
        total += minutes * 60_000
        if fields.count == 3 {
            guard fields[0].count >= 2, let hours = Int(fields[0]), hours >= 0 else { return nil }
            total += hours * 3_600_000
        }
        return total
    }
}
