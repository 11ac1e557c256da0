// `clipkit thumb`: one upright, scaled PNG per input.
import ArgumentParser
import ClipKit
import Foundation

struct ThumbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Write a PNG thumbnail of each video (first frame by default, upright, at most 320 px).",
        discussion: """
        Examples:
          clipkit thumb in.mp4                    writes ./in.png
          clipkit thumb in.mp4 --at 10% --size 640x360 -o poster.png
          clipkit thumb a.mp4 b.mov -o previews/  writes previews/a.png and previews/b.png
        Still images libavformat reads (PNG, JPEG, GIF) work too.
        """
    )

    @Argument(help: "Video or image files.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output file (one input), or directory (several inputs, a directory input, a name ending with /, or an existing directory; created if missing).")
    var output: String?

    @Option(help: ArgumentHelp("Frame to take: seconds (2.5), [hh:]mm:ss[.ms], or a percentage of the duration (10%). Frame-accurate.", valueName: "time"))
    var at: String?

    @Option(help: ArgumentHelp("Bounding box WxH keeping aspect, or 0 for the original size. Default 320x320.", valueName: "WxH"))
    var size: String?

    @Option(help: "Width in pixels; height keeps the aspect ratio.")
    var width: Int?

    @Option(help: "Height in pixels; width keeps the aspect ratio.")
    var height: Int?

    @Flag(help: "Take the first frame that is not almost uniformly black or white (fades, leaders).")
    var skipBlack = false

    @Option(help: ArgumentHelp("How far --skip-black looks, in seconds.", valueName: "seconds"))
    var skipBlackWithin: Double = 10

    @OptionGroup var batch: BatchOptions

    @OptionGroup(title: "Limits") var limits: LimitOptions

    func makeOptions() throws -> ThumbnailOptions {
        var options = ThumbnailOptions()
        options.limits = limits.limits
        options.size = try FrameSize.from(size: size, width: width, height: height, fallback: .fit(width: 320, height: 320))
        if let at { options.position = try ClipTime.position(at, option: "--at") }
        if skipBlack {
            guard skipBlackWithin > 0 else {
                throw ClipKitError.invalidOption(name: "--skip-black-within", reason: "must be more than 0 seconds")
            }
            options.skipBlankWithin = skipBlackWithin
        }
        return options
    }

    func run() throws {
        var options = ThumbnailOptions()
        try InputRunner.validate { options = try makeOptions() }
        var runner = InputRunner(batch: batch, outputExtension: "png", fingerprintOptions: options.fingerprintOptions)
        runner.limits = options.limits
        try runner.run(inputs, output: output) { [options] input, destination, fingerprint in
            var options = options
            options.fingerprint = fingerprint
            let result = try Thumbnailer(options: options).writeThumbnail(of: input.url, to: destination)
            InputRunner.printWarnings(result.warnings, for: input.url)
            return Report(input: input.url.path, status: .ok, frames: 1, width: result.width, height: result.height, bytes: result.bytes)
        }
    }
}
