// `clipkit explode`: each GIF or video to a directory of RGBA PNG frames plus frames.json.
import ArgumentParser
import ClipKit
import Foundation

struct ExplodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explode",
        abstract: "Write every frame of a GIF or video as a PNG, with a frames.json of timings.",
        discussion: """
        GIF frames are composited as browsers show them (disposal, transparency, images with \
        delay 0 merged into the next frame); videos give their upright frames. Files are \
        frame_0000.png, frame_0001.png, ... at canvas size, with frames.json beside them.
        Examples:
          clipkit explode anim.gif                 writes ./anim.frames/
          clipkit explode anim.gif --frames 0,5-9 -o picked
          clipkit explode clip.mp4 --fps 10        a video sampled at 10 fps
          clipkit explode a.gif b.gif -o out/      out/a.frames/ and out/b.frames/
        Damaged GIFs are decoded as far as browsers would, with a warning on stderr (exit 0).
        """
    )

    @Argument(help: "GIF or video files (a GIF is recognised by its first bytes, not its name); - reads standard input.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Output directory (one input named here), or the directory to put NAME.frames/ in (several inputs or a directory input; created if missing). Default ./NAME.frames/.", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Frames to write, counting from 0, e.g. 0,5-9. Default all.", valueName: "list"))
    var frames: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Sample a video at this many frames per second (default: every frame). Not for GIFs.", valueName: "F"))
    var fps: Double?

    @OptionGroup var batch: BatchOptions

    @OptionGroup(title: "Limits") var limits: LimitOptions

    func run() throws {
        // --force redoes up-to-date outputs and may replace an earlier explode's directory.
        var options = ExplodeOptions(fps: fps, force: batch.force)
        options.limits = limits.limits
        try InputRunner.validate {
            if let frames { options.frames = try FrameSelection(parsing: frames) }
            try options.validate()
        }
        var runner = InputRunner(batch: batch, outputExtension: nil, fingerprintOptions: options.fingerprintOptions)
        runner.limits = options.limits
        try runner.run(inputs, output: output) { [options] input, directory, fingerprint in
            var options = options
            options.fingerprint = fingerprint
            let result = try Exploder(options: options).explode(input.url, into: directory)
            let manifest = result.manifest
            var report = Report(input: input.url.path, outputs: [result.directory.path], status: .ok, frames: manifest.frames.count,
                                durationMs: manifest.durationMs, width: manifest.canvas.width, height: manifest.canvas.height)
            report.warnings = result.warnings
            return report
        }
    }
}
