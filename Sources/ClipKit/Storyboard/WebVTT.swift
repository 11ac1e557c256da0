// The WebVTT thumbnail track players read: one cue per tile, its payload the sheet and the tile's rectangle.

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
}
