// `clipkit info`: what a clip or GIF holds, for people (default) or machines (--json).
import ArgumentParser
import ClipKit
import Foundation

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe videos and GIFs: size, rotation, duration, frame rate and count, codec; loop and delays for GIFs.",
        discussion: """
        The frame rate is given as the headers state it and as measured from the timestamps \
        (flagging variable frame rate). With --json, one JSON object per input on stdout.
        """
    )

    @Argument(help: "Video or GIF files, or directories (searched for media by content); - reads standard input.")
    var inputs: [String]

    @Flag(name: .shortAndLong, help: "Search directories recursively.")
    var recursive = false

    @Flag(help: "In directories, follow links to sub-directories and to files outside the directory given.")
    var followLinks = false

    @Flag(help: "Count video frames by decoding them (exact: hidden frames, edit lists and field pairs are not frames); without it the count is the packets', an estimate.")
    var countFrames = false

    @Flag(help: "Print one JSON object per input (with schema and status; a failed input gives an object with its error).")
    var json = false

    @Option(name: .customLong("shard"), help: ArgumentHelp("Describe only shard I of N of the inputs found (as for the other commands).", valueName: "I/N"))
    var shardText: String?

    var shard: Shard? { shardText.flatMap(Shard.init(argument:)) }

    func validate() throws {
        try Shard.validate(shardText)
    }

    @OptionGroup(title: "Limits") var limits: LimitOptions

    func run() throws {
        var failed = false
        let found = InputScanner(recursive: recursive, followLinks: followLinks).expand(inputs)
        for input in found where shard?.contains(input.shardKey) ?? true {
            let url = input.url
            var fields: [(String, Any?)]
            do {
                if let problem = input.problem { throw problem }
                // Standard input is "-", not the private copy it was read from.
                fields = try Self.describe(url, limits: limits.limits.started(), countFrames: countFrames).map { key, value in
                    (key, key == "input" ? (value as? String).map(StandardStreams.shown) : value)
                }
                fields += [("status", "ok"), ("error", nil)]
            } catch {
                let message = StandardStreams.shown((error as? ClipKitError)?.description ?? "\(url.path): \(error)")
                InputRunner.printError(message)
                failed = true
                guard json else { continue }
                fields = [("input", StandardStreams.shown(url.path)), ("status", "error"), ("error", message)]
            }
            fields += [("schema", Report.schema), ("shard", shard?.description)]
            if let failure = StandardOutput.writeLine(json ? Self.jsonLine(fields) : Self.text(fields)) {
                InputRunner.printError("\(StandardStreams.shown(url.path)): \(failure)")
                throw ExitCode(1)
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// Ordered (key, value) pairs; nil values are unknown.
    static func describe(_ url: URL, limits: Limits, countFrames: Bool = false) throws -> [(String, Any?)] {
        if Exploder.isGIF(url) {
            let gif = try GIFInfo.read(url, limits: limits)
            return [
                ("input", url.path), ("kind", "gif"), ("width", gif.width), ("height", gif.height),
                ("frame_count", gif.frameCount), ("image_count", gif.imageCount), ("loop_count", gif.loopCount),
                // As browsers play it (delays under 2 cs last 10 cs), as gif and thumb time it;
                // the stored sum beside it.
                ("duration_ms", gif.playedDurationCentiseconds * 10), ("stored_duration_ms", gif.durationCentiseconds * 10),
                ("delay_min_cs", gif.minimumDelay),
                ("delay_max_cs", gif.maximumDelay), ("palette", gif.paletteKind),
                ("warnings", gif.warnings),
            ]
        }
        let info = try VideoReader(url: url, limits: limits).info
        let timing = try StreamTiming.measure(url, limits: limits)
        return [
            ("input", url.path), ("kind", "video"), ("container", info.container), ("codec", info.codec),
            ("width", info.width), ("height", info.height), ("coded_width", info.codedWidth), ("coded_height", info.codedHeight),
            ("sar", "\(info.sampleAspectRatio.width):\(info.sampleAspectRatio.height)"),
            ("dar", (info.displayAspectRatio * 10000).rounded() / 10000),
            ("rotation", info.rotation.degrees), ("mirrored", info.rotation.isMirrored),
            ("duration_ms", timing.videoLength(of: info).flatMap { Int(exactly: ($0 * 1000).rounded()) }),
            ("frame_rate", info.frameRate.map { ($0 * 1000).rounded() / 1000 }),
            ("measured_frame_rate", timing.measuredFrameRate.map { ($0 * 1000).rounded() / 1000 }),
            ("variable_frame_rate", timing.isVariableFrameRate),
            ("frame_count", try countFrames ? Self.decodedFrameCount(url, limits: limits) : timing.frameCount),
            ("frame_count_exact", countFrames),
            ("pixel_format", info.pixelFormat), ("bit_depth", info.bitDepth), ("has_alpha", info.hasAlpha), ("has_audio", info.hasAudio),
            ("color_primaries", info.colorPrimaries), ("color_transfer", info.colorTransfer),
            ("color_matrix", info.colorMatrix), ("color_range", info.colorRange), ("hdr", info.isHDR),
            ("warnings", timing.warnings),
        ]
    }

    /// Frames a full decode shows, at a tiny output size so only decoding costs.
    /// The orientation in words. The JSON's `rotation` is the angle ffprobe gives, and a
    /// mirrored matrix's angle counts the mirror as a half turn plus a top-to-bottom flip: a
    /// plain left-to-right mirror is 180 and mirrored, which the line called "rotated 180,
    /// mirrored". In words the mirror comes first, then the turn that is left.
    static func orientation(_ degrees: Int, mirrored: Bool) -> String {
        guard mirrored else { return "rotated \(degrees)" }
        switch (degrees + 180) % 360 {
        case 0: return "mirrored left to right"
        case 180: return "flipped top to bottom"
        case let turn: return "mirrored left to right, then rotated \(turn)"
        }
    }

    static func decodedFrameCount(_ url: URL, limits: Limits) throws -> Int {
        var options = FrameReadOptions(size: .exact(width: 2, height: 2))
        options.limits = limits
        let frames = try VideoReader(url: url, limits: limits).frames(options: options)
        var count = 0
        while try frames.next() != nil { count += 1 }
        return count
    }

    static func jsonLine(_ fields: [(String, Any?)]) -> String {
        var object: [String: Any] = [:]
        for (key, value) in fields {
            switch (key, value) {
            case ("input", let path as String): object.merge(FileSystemPath.jsonFields("input", path)) { _, new in new }
            case ("error", let message as String): object[key] = FileSystemPath.display(message)
            default: object[key] = value ?? NSNull()
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func text(_ fields: [(String, Any?)]) -> String {
        let value = { (key: String) -> Any? in fields.first { $0.0 == key }?.1 ?? nil }
        let show = { (v: Any?) -> String in v.map { "\($0)" } ?? "unknown" }
        var lines = [InputRunner.oneLine(FileSystemPath.display(show(value("input"))))]
        if value("kind") as? String == "gif" {
            lines.append("  GIF \(show(value("width")))x\(show(value("height"))), \(show(value("frame_count"))) frames (\(show(value("image_count"))) images)")
            let loop = (value("loop_count") as? Int).map { $0 == 0 ? "loops forever" : "loop count \($0)" } ?? "no loop extension (plays once)"
            lines.append("  \(loop), duration \(show(value("duration_ms"))) ms, delays \(show(value("delay_min_cs")))-\(show(value("delay_max_cs"))) cs")
            lines.append("  palette: \(show(value("palette")))")
            for warning in value("warnings") as? [String] ?? [] { lines.append("  warning: \(warning)") }
        } else {
            var size = "  \(show(value("codec"))) in \(show(value("container"))), \(show(value("width")))x\(show(value("height")))"
            if let rotation = value("rotation") as? Int, rotation != 0 || value("mirrored") as? Bool == true {
                size += " (stored \(show(value("coded_width")))x\(show(value("coded_height"))), \(Self.orientation(rotation, mirrored: value("mirrored") as? Bool == true)))"
            }
            if let sar = value("sar") as? String, sar != "1:1" {
                size += " (stored \(show(value("coded_width")))x\(show(value("coded_height"))) with pixels \(sar), display aspect \(show(value("dar"))))"
            }
            lines.append(size)
            let duration = (value("duration_ms") as? Int).map { String(format: "%.3f s", Double($0) / 1000) } ?? "unknown"
            let estimate = value("frame_count_exact") as? Bool == true ? "" : " (packets; --count-frames decodes)"
            var rate = "  duration \(duration), \(show(value("frame_count"))) frames\(estimate), \(show(value("frame_rate"))) fps nominal, \(show(value("measured_frame_rate"))) measured"
            if value("variable_frame_rate") as? Bool == true { rate += " (variable frame rate)" }
            lines.append(rate)
            var format = "  \(show(value("pixel_format"))), \(show(value("bit_depth"))) bit, \(value("has_audio") as? Bool == true ? "with audio" : "no audio")"
            if let transfer = value("color_transfer") as? String {
                format += ", colour \(show(value("color_primaries")))/\(transfer)/\(show(value("color_matrix")))/\(show(value("color_range")))"
            }
            if value("hdr") as? Bool == true { format += " (HDR: tone-mapped to SDR)" }
            lines.append(format)
            for warning in value("warnings") as? [String] ?? [] { lines.append("  warning: \(warning)") }
        }
        return lines.joined(separator: "\n")
    }
}
