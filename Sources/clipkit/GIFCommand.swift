// `clipkit gif`: videos (or PNG frames, or an exploded frames.json) to looping GIFs.
import ArgumentParser
import ClipKit
import Foundation

struct GIFCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gif",
        abstract: "Convert videos to looping GIFs with exact delays, per-frame palettes and small files.",
        discussion: """
        Frame i shows the source frame on screen at start + i/fps (chosen by timestamp), and \
        delays are rounded cumulatively to centiseconds, so the GIF lasts as long as the clip.

        Looping: by default the GIF loops forever (NETSCAPE2.0 count 0). --loop N writes the \
        count N, which browsers play N+1 times in all; --no-loop writes no loop extension, so \
        the GIF plays once (as ffmpeg's -loop -1 and gifsicle's --no-loopcount).

        Examples:
          clipkit gif in.mov                         writes ./in.gif, 10 fps, at most 480 px wide
          clipkit gif in.mp4 --fps 15 --width 320 --start 2 --duration 3 -o clip.gif
          clipkit gif a.mp4 b.mov -o gifs/
        """
    )

    @Argument(help: "Video files.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output file (one input) or directory (ends with /, or exists).")
    var output: String?

    @Option(help: "Frames per second, chosen by timestamp (at most 50).")
    var fps: Double = 10

    @Option(help: ArgumentHelp("Bounding box WxH keeping aspect, or 0 for the source size.", valueName: "WxH"))
    var size: String?

    @Option(help: "Width in pixels, height from the aspect ratio. Default: the source width up to 480.")
    var width: Int?

    @Option(help: "Height in pixels, width from the aspect ratio.")
    var height: Int?

    @Option(help: ArgumentHelp("Start at this time: seconds (2.5) or [hh:]mm:ss[.ms].", valueName: "time"))
    var start: String?

    @Option(help: ArgumentHelp("Length of the GIF in source time.", valueName: "time"))
    var duration: String?

    @Option(help: ArgumentHelp("End at this source time (instead of --duration).", valueName: "time"))
    var end: String?

    @Option(help: "Playback speed: 2 plays twice as fast (drops frames rather than write delays under 2 cs).")
    var speed: Double = 1

    @Option(help: "Colours per palette, 2 to 256.")
    var colors: Int = 256

    @Option(help: ArgumentHelp("Dithering: floyd-steinberg (default), sierra, bayer (ordered, smaller files, no crawling), none.", valueName: "mode"))
    var dither: String = DitherMethod.floydSteinberg.rawValue

    @Option(help: ArgumentHelp("per-frame (each frame its own best colours) or global (one palette for the clip).", valueName: "kind"))
    var palette: String = PaletteMode.perFrame.rawValue

    @Option(help: ArgumentHelp("Colour change below which a pixel counts as unchanged between frames (0 = exact; larger = smaller files).", valueName: "n"))
    var threshold: Int = GIFOptions().changeThreshold

    @Option(help: "Loop count N written to the NETSCAPE2.0 extension: 0 loops forever; N plays N+1 times.")
    var loop: Int?

    @Flag(help: "Write no loop extension: the GIF plays once.")
    var noLoop = false

    @Flag(name: .shortAndLong, help: "Print no progress or summary.")
    var quiet = false

    func makeOptions() throws -> GIFOptions {
        var options = GIFOptions()
        options.fps = fps
        options.size = try FrameSize.from(size: size, width: width, height: height, fallback: .width(480))
        if let start { options.start = try ClipTime.seconds(start, option: "--start") }
        if duration != nil && end != nil {
            throw ClipKitError.invalidOption(name: "--duration", reason: "give --duration or --end, not both")
        }
        if let duration {
            let length = try ClipTime.seconds(duration, option: "--duration")
            guard length > 0 else { throw ClipKitError.invalidOption(name: "--duration", reason: "must be more than 0") }
            options.end = options.start + length
        }
        if let end { options.end = try ClipTime.seconds(end, option: "--end") }
        options.speed = speed
        options.colors = colors
        guard threshold >= 0 else { throw ClipKitError.invalidOption(name: "--threshold", reason: "must be 0 or more") }
        options.changeThreshold = threshold
        guard let method = DitherMethod(rawValue: dither) else {
            throw ClipKitError.invalidOption(name: "--dither", reason: "'\(dither)' is not one of \(DitherMethod.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        options.dither = method
        guard let mode = PaletteMode(rawValue: palette) else {
            throw ClipKitError.invalidOption(name: "--palette", reason: "'\(palette)' is not per-frame or global")
        }
        options.palette = mode
        if noLoop && loop != nil {
            throw ClipKitError.invalidOption(name: "--no-loop", reason: "give --loop N or --no-loop, not both")
        }
        options.loopCount = noLoop ? nil : (loop ?? 0)
        try options.validate()
        return options
    }

    func run() throws {
        var options = GIFOptions()
        try InputRunner.validate {
            options = try makeOptions()
            try OutputPlan.prepare(output: output)
            for input in inputs {
                _ = try OutputPlan.destination(for: URL(fileURLWithPath: input), output: output, extension: "gif", inputCount: inputs.count)
            }
        }
        let inputURLs = inputs.map { URL(fileURLWithPath: $0) }
        let reporter = ProgressReporter(enabled: !quiet)
        try InputRunner.run(inputs) { input in
            let destination = try OutputPlan.destination(for: input, output: output, extension: "gif", inputCount: inputs.count)
            try OutputPlan.checkNotInput(destination, inputs: inputURLs)
            let started = Date()
            let converter = GIFConverter(options: options, progress: reporter.callback(for: input.lastPathComponent))
            let result = try converter.convert(video: input, to: destination)
            reporter.finish(result, seconds: Date().timeIntervalSince(started))
        }
    }
}
