// `clipkit gif`: videos (or image frames, or an exploded frames.json) to looping GIFs.
import ArgumentParser
import ClipKit
import Foundation

struct GIFCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gif",
        abstract: "Convert videos to looping GIFs with exact delays, per-frame palettes and small files (and animated WebP, MP4).",
        discussion: """
        Frame i shows the source frame on screen at start + i/fps (chosen by timestamp), and \
        delays are rounded cumulatively to centiseconds, so the GIF lasts as long as the clip.

        Looping: by default the GIF loops forever (NETSCAPE2.0 count 0), and a GIF or animated \
        PNG input keeps its own loop count (as gifsicle keeps a GIF's). --loop N writes the \
        count N, which browsers play N+1 times in all; --no-loop writes no loop extension, so \
        the GIF plays once (as ffmpeg's -loop -1 and gifsicle's --no-loopcount).

        Inputs are videos, GIFs or animated PNGs (each gives its own GIF), or image frames (still \
        PNGs, JPEGs upright by their EXIF orientation) assembled into one GIF (--delay or --fps sets their timing), or the frames.json of an exploded directory, \
        which rebuilds the GIF with its delays, loop count and canvas. Frames with at most 255 \
        colours (plus transparency) are written losslessly.

        Examples:
          clipkit gif in.mov              ./in.gif, 10 fps, at most 480 px wide
          clipkit gif in.mp4 --fps 15 --width 320 --start 2 --duration 3 -o clip.gif
          clipkit gif a.mp4 b.mov -o gifs/
          clipkit gif f1.png f2.png f3.png --delay 20 -o anim.gif
          clipkit gif anim.frames/frames.json -o rebuilt.gif
          clipkit gif in.mov -o in.gif -o in.webp -o in.mp4     three formats, one decode
          clipkit gif in.mov --max-bytes 2MB --json              the best GIF under 2 MB, its SSIMULACRA2
        """
    )

    @Argument(help: "Video files, image frames (PNG, JPEG), or one frames.json; - reads standard input. A file whose name starts with - goes after --.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output file (one input), or directory (several inputs, a directory input, a name ending with /, or an existing directory; created if missing). The extension picks the format: .gif, .webp (animated WebP) or .mp4 (H.264). Repeat it for several formats from one decode (one input): -o a.gif -o a.webp -o a.mp4. -o - writes the one output to standard output (--format picks it).")
    var output: [String] = []

    @Option(help: ArgumentHelp("Formats to write, comma-separated: gif, webp, mp4 (for outputs named after the input, or in an -o directory). Default: gif, or the -o file's.", valueName: "list"))
    var format: String?

    @Flag(help: "WebP: lossless instead of lossy.")
    var lossless = false

    @Option(parsing: .unconditional, help: ArgumentHelp("MP4: x264's constant rate factor, 0 (lossless) to 51; lower is better and larger. Default 23.", valueName: "n"))
    var crf: Double?

    @Option(parsing: .unconditional, help: "Frames per second, chosen by timestamp (at most 50). Default 10; a GIF input, or an animated PNG of frames of 2 cs or more (without --start, --duration, --end or --speed over 1), keeps its own frames and delays.")
    var fps: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Delay of each image frame in centiseconds (PNG and JPEG frames only).", valueName: "cs"))
    var delay: Int?

    @Option(help: ArgumentHelp("Bounding box WxH keeping aspect, or 0 for the source size. Never larger than the source (no upscaling).", valueName: "WxH"))
    var size: String?

    @Option(parsing: .unconditional, help: "Width in pixels, height from the aspect ratio; a narrower source keeps its size (no upscaling). Default: the source width up to 480 (image frames and a frames.json keep their size).")
    var width: Int?

    @Option(parsing: .unconditional, help: "Height in pixels, width from the aspect ratio; a shorter source keeps its size.")
    var height: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Start at this time: seconds (2.5) or [hh:]mm:ss[.ms].", valueName: "time"))
    var start: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Length of the GIF in source time.", valueName: "time"))
    var duration: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("End at this source time (instead of --duration).", valueName: "time"))
    var end: String?

    @Option(parsing: .unconditional, help: "Playback speed: 2 plays twice as fast (drops frames rather than write delays under 2 cs).")
    var speed: Double = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Colours per palette, 2 to 256 (default 256). A power of two from 8 up is the table's size, the transparent entry included as ffmpeg's palettegen counts it: a frame drawn over the last has one colour fewer, so 128 keeps a table of 128 entries, not 256.", valueName: "n"))
    var colors: Int?

    @Option(help: ArgumentHelp("Dithering: floyd-steinberg (the default), sierra, bayer (ordered, smaller files, no crawling) or none.", valueName: "mode"))
    var dither: String?

    @Option(help: ArgumentHelp("auto (the default: per-frame, but on small pictures, where a frame's own colour table would be a quarter of its bytes or more, up to 4,608 pixels with 256 colours such as 64x64, one palette for the clip, made from the frames held in memory; and a GIF input at its own size whose images all read one colour table, or whose frames show at most 255 colours in all, one palette as with global; neither with --max-bytes), per-frame (each frame its own best colours) or global (one palette for the clip, from a first decoding pass).", valueName: "kind"))
    var palette: String = PaletteMode.auto.rawValue

    @Option(parsing: .unconditional, help: ArgumentHelp("Colour change below which a pixel counts as unchanged between frames (0 = exact; larger = smaller files). A changed pixel may also keep what is already shown where that is about as close to it as a fresh colour (within 60, never more than this; under --lossy, at least as close). Default \(GIFOptions().changeThreshold); 0 for a GIF input (drawn exactly) without --quality or --max-bytes.", valueName: "n"))
    var threshold: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Lossy LZW compression, 0 (off, exact; the default) to 1000: higher gives smaller files with more noise; 20 to 80 is a good range. Given with --max-bytes (even 0), it stays.", valueName: "n"))
    var lossy: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop adding colours to a frame's palette once it is this close to the frame's pixels (mean squared RGB distance, weighted 3:4:2), up to --colors: frames that need fewer colours (flat screen content) get fewer, which saves bytes. 0 (the default) always takes --colors; --quality sets 0 at 100, 30 at 95, 60 at 90, rising as the level falls (90 at 75, 100 at 50, 200 from 25 down). A frame whose colours all fit stays exact.", valueName: "n"))
    var paletteError: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("One knob for size against fidelity, 1-100: sets --colors, --threshold, --lossy and --palette-error (Floyd-Steinberg dithering stays on) along the bytes/SSIMULACRA2 frontier measured on natural clips (options given explicitly win). 100 draws every change exactly (threshold 0, no lossy): the largest and best; the default output (no --quality) is not on the scale. Below 90 colours fall as lossy rises (192 colours and lossy 80 at 75, 128 and 135 at 50); the threshold stays near 0 down to 50, then rises (20 at 40, 60 at 25, 2000 at 1). WebP: its lossy quality (default 80).", valueName: "q"))
    var quality: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Largest GIF wanted: bytes, or with a unit (500KB, 5MB, 2MiB). The highest --quality level that fits is written (from --quality, else 100, down to 80; passes stop as soon as their size is known), below that a narrower picture at 80 (an odd width: libswscale gives those full-resolution chroma), and at the narrowest (16 px) the levels under 80; --colors, --threshold, --lossy or --palette-error given stay. A level a little over the limit writes its later frames with more lossy LZW (up to 1.5x its own, reported as lossy_max) to land under it, one a little under with less (down to its own over 1.5, lossy_min) to land nearer it, instead of taking another pass. Never larger. The first pass (or the decode of a WebP/MP4 beside it) keeps the decoded video (up to --max-memory/5, at most 192 MiB) for the passes to scale again.", valueName: "size"))
    var maxBytes: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Lowest quality accepted, in SSIMULACRA2 points 0-100 (90 visually lossless, 70 high, 50 medium, 30 low; the mean measured by --measure): a GIF measured below it is not written (exit 1); with --max-bytes, a smaller picture is tried first. Default 30 with --max-bytes (none with --no-measure), else none. Values up to 1 (an SSIM) are refused.", valueName: "points"))
    var minQuality: Double?

    @Flag(inversion: .prefixedNo, help: "Measure the GIF while writing it, what a viewer sees against the source frame: luma SSIM at every output tick, SSIMULACRA2 (colour-aware, 0-100; mean and 5th percentile) at up to 2 ticks a second (the first and last always; a GIF over 1920x1080 box-averaged to fit), and the duration error, in --json and the summary line. On by default with --quality, --max-bytes or --min-quality.")
    var measure: Bool?

    @Option(parsing: .unconditional, help: "Loop count N written to the NETSCAPE2.0 extension: 0 loops forever; N plays N+1 times.")
    var loop: Int?

    @Flag(help: "Write no loop extension: the GIF plays once.")
    var noLoop = false

    @Option(help: ArgumentHelp("Also write the GIF's first frame as a PNG poster here, from the same decode (one video input).", valueName: "png"))
    var poster: String?

    @OptionGroup var batch: BatchOptions

    @OptionGroup(title: "Limits") var limits: LimitOptions

    func makeOptions() throws -> GIFOptions {
        var options = GIFOptions()
        options.limits = limits.limits
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
        // Settings given explicitly stay under --quality and --max-bytes, even at their defaults.
        if let colors { options.colors = colors; options.givenSettings.insert(.colors) }
        if let threshold {
            guard threshold >= 0 else { throw ClipKitError.invalidOption(name: "--threshold", reason: "must be 0 or more") }
            options.changeThreshold = threshold
            options.givenSettings.insert(.changeThreshold)
        }
        if let lossy { options.lossy = lossy; options.givenSettings.insert(.lossy) }
        if let paletteError {
            guard (0...GIFOptions.maxPaletteError).contains(paletteError) else {
                throw ClipKitError.invalidOption(name: "--palette-error", reason: "must be 0 to \(GIFOptions.maxPaletteError), got \(paletteError)")
            }
            options.paletteError = paletteError
            options.givenSettings.insert(.paletteError)
        }
        if let quality {
            guard (1...100).contains(quality) else {
                throw ClipKitError.invalidOption(name: "--quality", reason: "must be 1 to 100, got \(quality)")
            }
            guard (lossy ?? 0) == 0 else { throw ClipKitError.invalidOption(name: "--quality", reason: "give --quality or --lossy, not both") }
        }
        if let maxBytes { options.maxBytes = try ByteSize.parse(maxBytes, option: "--max-bytes") }
        if let quality { options.animation.quality = Double(quality) }
        options.animation.lossless = lossless
        if let crf {
            guard crf.isFinite, (0...51).contains(crf) else {
                throw ClipKitError.invalidOption(name: "--crf", reason: "must be 0 to 51, got \(crf)")
            }
            options.animation.crf = crf
        }
        if measure == false, minQuality != nil {
            throw ClipKitError.invalidOption(name: "--no-measure", reason: "--min-quality needs the measurement")
        }
        // --max-bytes keeps to a quality floor unless measuring is turned off.
        options.minQuality = minQuality ?? (maxBytes != nil && measure != false ? GIFOptions.defaultMinQualityForMaxBytes : nil)
        options.measure = measure ?? (quality != nil || maxBytes != nil || minQuality != nil)
        if let dither {
            guard let method = DitherMethod(rawValue: dither) else {
                throw ClipKitError.invalidOption(name: "--dither", reason: "'\(dither)' is not one of \(DitherMethod.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            options.dither = method
            options.givenSettings.insert(.dither)
        }
        guard let mode = PaletteMode(rawValue: palette) else {
            throw ClipKitError.invalidOption(name: "--palette", reason: "'\(palette)' is not auto, per-frame or global")
        }
        options.palette = mode
        // --quality picks colours, threshold, lossy and palette error along the frontier; those given explicitly win.
        if let quality { options.apply(quality: quality) }
        if noLoop && loop != nil {
            throw ClipKitError.invalidOption(name: "--no-loop", reason: "give --loop N or --no-loop, not both")
        }
        options.loopCount = noLoop ? nil : (loop ?? 0)
        try options.validate()
        return options
    }

    /// What the inputs are: videos converted one by one, or frames assembled into one GIF.
    enum Job {
        case videos
        case images([URL])
        case manifest(URL)
    }

    func job() throws -> Job {
        let urls = inputs.map { URL(fileURLWithPath: $0) }
        if inputs.count == 1, urls[0].pathExtension.lowercased() == "json" {
            return .manifest(urls[0])
        }
        // A still PNG or a JPEG is one frame of the GIF; an animated PNG (APNG) is converted as a video is.
        let stills = urls.filter { GIFConverter.imageFrameExtensions.contains($0.pathExtension.lowercased()) }
        let animated = stills.filter { $0.pathExtension.lowercased() == "png" && PNGReader.isAnimated($0) }
        if stills.count > animated.count {
            guard stills.count == urls.count, animated.isEmpty else {
                throw ClipKitError.invalidOption(name: "inputs", reason: "image frames (PNG, JPEG) cannot be mixed with videos (an animated PNG counts as a video)")
            }
            return .images(urls)
        }
        if delay != nil {
            throw ClipKitError.invalidOption(name: "--delay", reason: "is for image frames (PNG, JPEG); videos (and animated PNGs) take their timing from --fps")
        }
        return .videos
    }

    func run() throws {
        var parsed = GIFOptions()
        var job = Job.videos
        var outputs = OutputSet(formats: ["gif"])
        try InputRunner.validate {
            parsed = try makeOptions()
            job = try self.job()
            // Frames assembled into a GIF keep their size unless one is asked for.
            if case .videos = job {} else if size == nil, width == nil, height == nil { parsed.size = .original }
            outputs = try outputSet(job: job)
            if let delay { try TimingBounds.checkDelays([delay], in: TimingBounds.givenDelay, name: "--delay") }
            if delay != nil && fps != nil {
                throw ClipKitError.invalidOption(name: "--delay", reason: "give --delay or --fps, not both")
            }
            if poster != nil {
                let directoryInput = FileSystemPath.isDirectory(inputs[0])
                guard case .videos = job, inputs.count == 1, !directoryInput else {
                    throw ClipKitError.invalidOption(name: "--poster", reason: "takes one video input (the poster of its GIF)")
                }
                guard poster!.lowercased().hasSuffix(".png") else {
                    throw ClipKitError.invalidOption(name: "--poster", reason: "is written as PNG: name it NAME.png")
                }
            }
        }
        let options = parsed
        // Progress bars only make sense one file at a time.
        let reporter = ProgressReporter(enabled: !batch.quiet && !batch.json, live: (batch.jobs ?? 1) == 1 || inputs.count == 1)
        switch job {
        case .videos:
            let posterURL = poster.map { URL(fileURLWithPath: $0) }
            // WebP and MP4 outputs record the same fingerprint as the GIF beside them: it holds their settings too.
            let formats = outputs.formats == ["gif"] ? "" : " formats=\(outputs.formats.joined(separator: ",")) " + options.animation.fingerprintOptions
            var runner = InputRunner(batch: batch, outputExtension: outputs.formats[0], fingerprintOptions: options.fingerprintOptions + formats)
            runner.writableExtensions = Self.formatNames + ["m4v"]
            // A GIF or animated PNG keeps its own loop count unless --loop or --no-loop is given.
            let keepsLoop = loop == nil && !noLoop
            if keepsLoop { runner.fingerprintOptionsOf = { options.withLoopCount(of: $0).fingerprintOptions + formats } }
            runner.limits = options.limits
            runner.companions = Array(outputs.files.dropFirst()) + (posterURL.map { [$0] } ?? [])
            let files = outputs.files, siblingExtensions = Array(outputs.formats.dropFirst())
            if files.isEmpty { runner.outputsOf = { [$0] + InputRunner.siblings(of: $0, extensions: siblingExtensions) } }
            try runner.run(inputs, output: output.first) { input, destination, fingerprint in
                let started = Date()
                let written = files.isEmpty ? [destination] + InputRunner.siblings(of: destination, extensions: siblingExtensions) : files
                for companion in Array(written.dropFirst()) + (posterURL.map { [$0] } ?? []) {
                    try OutputPlan.checkNotInput(companion, inputs: [input.url, destination])
                }
                var options = keepsLoop ? options.withLoopCount(of: input.url) : options
                options.fingerprint = fingerprint
                let converter = GIFConverter(options: options, progress: reporter.callback(for: input.url.lastPathComponent))
                let result = try converter.convert(video: input.url, outputs: written, poster: posterURL)
                var report: Report
                if let gif = result.gif {
                    report = Report(gif)
                    if let line = reporter.summary(of: gif, seconds: Date().timeIntervalSince(started)) { report.summary.append(line) }
                } else {
                    report = Report(input: "", status: .ok)
                }
                report.warnings = result.warnings
                for animation in result.animations {
                    if let line = reporter.summary(of: animation, seconds: Date().timeIntervalSince(started)) { report.summary.append(line) }
                    if report.frames == nil {
                        (report.frames, report.durationMs) = (animation.frameCount, animation.durationMilliseconds)
                        (report.width, report.height) = (animation.width, animation.height)
                    }
                    report.bytes = (report.bytes ?? 0) + animation.bytes
                }
                report.outputs = written.map(\.path)
                if let posterURL { report.outputs.append(posterURL.path) }
                return report
            }
        case .images(let images):
            let fps = options.fps ?? GIFOptions.defaultFPS
            // Without --delay, frame i is shown at i/fps, rounded cumulatively like video frames.
            let delays = delay.map { Array(repeating: $0, count: images.count) }
                ?? Delays.centiseconds(times: images.indices.map { Double($0) / fps }, duration: Double(images.count) / fps)
            try runSingle(named: images[0], inputs: images) { destination in
                try GIFConverter(options: options.recordingFingerprint).convert(images: images, delays: delays, to: destination)
            }
        case .manifest(let manifest):
            // DIR/frames.json becomes DIR.gif (anim.frames/ -> anim.frames.gif), never the original's name.
            let name = manifest.deletingLastPathComponent().appendingPathExtension("json")
            let keepLoop = loop == nil && !noLoop
            // The frames it lists are inputs too: `-o DIR/frame_0003.png --force` replaced one
            // with the GIF's bytes (a manifest that does not read is the conversion's error).
            let frames = (try? FramesManifest.read(from: manifest))?.frames.map {
                manifest.deletingLastPathComponent().appendingPathComponent($0.file)
            } ?? []
            try runSingle(named: name, inputs: [manifest] + frames) { destination in
                try GIFConverter(options: options.recordingFingerprint).convert(manifest: manifest, to: destination, keepLoopCount: keepLoop)
            }
        }
    }
}
