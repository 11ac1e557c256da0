// `clipkit thumb`: one upright, scaled PNG per input.
import ArgumentParser
import ClipKit
import Foundation

struct ThumbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Write a PNG (or JPEG) thumbnail of each video (first frame by default, upright, at most 320 px).",
        discussion: """
        Examples:
          clipkit thumb in.mp4                    writes ./in.png
          clipkit thumb in.mp4 --at 10% --size 640x360 -o poster.png
          clipkit thumb in.mp4 -o poster.jpg      writes a JPEG
          clipkit thumb a.mp4 b.mov -o previews/  writes previews/a.png and previews/b.png
          clipkit thumb in.mp4 --pick best        the best poster frame
          clipkit thumb in.mp4 --pick best --count 3 --within 60 --json
              in-1.png (best), in-2.png, in-3.png from the first minute
        Still images libavformat reads (PNG, JPEG, GIF) work too, and an audio
        file's cover art (its one picture, whatever --at or --pick asks).

        --pick best scores the keyframes (with fewer than 4, frames sampled
        evenly instead) at 160 px: sharpness (Laplacian of luma) x detail
        (luma histogram entropy) x (0.75 + 0.25 colourfulness) x stability
        (alike to its neighbouring samples: away from cuts, flashes, quick
        fades). Black, white and flat frames score 0; ties go to the earlier
        frame. The frames in the half second after a picked keyframe are
        scored too, and one 5% better replaces it. The winner is taken at the
        requested size exactly as --at takes it; --json lists each pick's
        time, score and parts. --count N posters are at least span/(2N)
        seconds apart where possible, never near-duplicates; a clip with fewer
        distinct frames gives fewer files, with a warning.
        """
    )

    @Argument(help: "Video or image files; - reads standard input. A file whose name starts with - goes after --.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output file (one input): PNG, or JPEG when named .jpg or .jpeg; or a directory (several inputs, a directory input, a name ending with /, or an existing directory; created if missing) of PNGs. -o - writes the one PNG to standard output.")
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Frame to take: seconds (2.5), [hh:]mm:ss[.ms], or a percentage of the duration (10%; of the frames there are when they end before the duration the header states). Frame-accurate.", valueName: "time"))
    var at: String?

    @Option(help: ArgumentHelp("Bounding box WxH keeping aspect, or 0 for the original size; never larger than the source (no upscaling). Default 320x320.", valueName: "WxH"))
    var size: String?

    @Option(parsing: .unconditional, help: "Width in pixels; height keeps the aspect ratio. A narrower source keeps its size.")
    var width: Int?

    @Option(parsing: .unconditional, help: "Height in pixels; width keeps the aspect ratio. A shorter source keeps its size.")
    var height: Int?

    @Flag(help: "Take the first frame that is not almost uniformly black or white (fades, leaders).")
    var skipBlack = false

    @Option(parsing: .unconditional, help: ArgumentHelp("How far --skip-black looks, in seconds.", valueName: "seconds"))
    var skipBlackWithin: Double = 10

    @Option(help: ArgumentHelp("first: the frame at --at (the first frame by default). best: the frame that scores best as a poster (not blank, sharp, detailed, away from cuts and fades); cannot be combined with --at.", valueName: "first|best"))
    var pick: String = ThumbnailPick.first.rawValue

    @Option(parsing: .unconditional, help: ArgumentHelp("With --pick best: write N distinct posters, NAME-1.png (best) to NAME-N.png, spread across the clip (1-\(ThumbnailOptions.maxCount)).", valueName: "N"))
    var count: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --pick best: look only at the first SECONDS (seconds or [hh:]mm:ss[.ms]).", valueName: "seconds"))
    var within: String?

    @OptionGroup var batch: BatchOptions

    @OptionGroup(title: "Limits") var limits: LimitOptions

    func makeOptions() throws -> ThumbnailOptions {
        var options = ThumbnailOptions()
        options.limits = limits.limits
        options.size = try FrameSize.from(size: size, width: width, height: height, fallback: .fit(width: 320, height: 320))
        if let at { options.position = try ClipTime.position(at, option: "--at") }
        // Checked whether or not --skip-black is given: a bad value is a mistake either way.
        guard skipBlackWithin > 0, skipBlackWithin.isFinite else {
            throw ClipKitError.invalidOption(name: "--skip-black-within", reason: "must be more than 0 seconds, got \(skipBlackWithin)")
        }
        if skipBlack { options.skipBlankWithin = skipBlackWithin }
        guard let pick = ThumbnailPick(rawValue: pick) else {
            throw ClipKitError.invalidOption(name: "--pick", reason: "'\(pick)' is not one of \(ThumbnailPick.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        options.pick = pick
        if let count { options.count = count }
        if let within {
            options.within = try ClipTime.seconds(within, option: "--within")
            guard options.within! > 0 else { throw ClipKitError.invalidOption(name: "--within", reason: "must be more than 0 seconds") }
        }
        try options.validate()
        return options
    }

    func run() throws {
        var options = ThumbnailOptions()
        try InputRunner.validate { options = try makeOptions() }
        // A single output file named .jpg or .jpeg is JPEG; everything else PNG.
        if let output, output != "-", !OutputPlan.isDirectoryTarget(output),
           StillImageFormat(name: FileSystemPath.nameExtension(of: output)) == .jpeg {
            options.format = .jpeg
        }
        var runner = InputRunner(batch: batch, outputExtension: options.format == .jpeg ? FileSystemPath.nameExtension(of: output ?? "") : "png",
                                 fingerprintOptions: options.fingerprintOptions)
        runner.writableExtensions = ["png", "jpg", "jpeg"]
        runner.limits = options.limits
        runner.outputsOf = { [options] in options.outputs(for: $0) }
        try runner.run(inputs, output: output) { [options] input, destination, fingerprint in
            var options = options
            options.fingerprint = fingerprint
            let result = try Thumbnailer(options: options).writeThumbnail(of: input.url, to: destination)
            var report = Report(input: input.url.path, outputs: result.urls.map(\.path), status: .ok, frames: result.urls.count,
                                width: result.width, height: result.height, bytes: result.bytes)
            report.warnings = result.warnings
            if options.pick == .best {
                report.picks = zip(result.urls, result.picks).map { Report.Pick(output: $0.path, score: $1) }
            }
            return report
        }
    }
}
