// `clipkit storyboard`: each video to sprite sheets of thumbnails plus the WebVTT file players read for scrub-bar previews.
import ArgumentParser
import ClipKit
import Foundation

struct StoryboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyboard",
        abstract: "Write scrub-bar previews of each video: sprite sheets of thumbnails and a WebVTT file mapping times to them.",
        discussion: """
        Tile i shows the frame on screen at i x interval seconds (--keyframes: the keyframe \
        nearest that time); its cue lasts until the next tile's time, the last one's until the \
        end of the clip, so every moment is covered by exactly one cue. The default interval is \
        the smallest whole number of seconds giving at most 100 tiles. A clip shorter than one \
        interval, or a still image, gives one tile for all of it. Tiles are never larger than \
        the picture: a --tile larger than the source gives tiles at the source's size.

        The output directory (default ./NAME.storyboard/) appears whole or not at all: \
        sheet_0.jpg, sheet_1.jpg, ... (--max-sheet tiles each, --columns to a row, the last \
        cropped to its rows; zero-padded when there are more than ten), storyboard.vtt and \
        storyboard.json (tiles, times, source frame times, sheets, tile size). JPEG and WebP \
        are encoded by libavcodec (mjpeg, libwebp), looked up at run time; png needs no encoder.

        storyboard.vtt is the thumbnail track video.js, Vidstack, Plyr and JW Player read:
          WEBVTT

          00:00:00.000 --> 00:00:06.000
          sheet_0.jpg#xywh=0,0,160,90

          00:00:06.000 --> 00:00:12.000
          sheet_0.jpg#xywh=160,0,160,90

        Examples:
          clipkit storyboard in.mp4               ./in.storyboard/
          clipkit storyboard in.mp4 --interval 5 --tile 240 --format webp
          clipkit storyboard long.mkv --keyframes (keyframes only: faster)
          clipkit storyboard media/ -r -o previews/ --json
        """
    )

    @Argument(help: "Video files (GIFs and still images work too); - reads standard input.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Output directory (one input named here), or the directory to put NAME.storyboard/ in (several inputs or a directory input; created if missing). Default ./NAME.storyboard/.", valueName: "dir"))
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between tiles: seconds (2.5) or [hh:]mm:ss[.ms], at least 0.001. Default: whole seconds, as few as give at most 100 tiles.", valueName: "time"))
    var interval: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Number of tiles, evenly spread over the clip (instead of --interval).", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Tile size: a width (height from the display aspect ratio) or a WxH box the tile fits in keeping aspect. Default 160.", valueName: "W|WxH"))
    var tile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Tiles per row of a sheet.", valueName: "n"))
    var columns: Int = StoryboardOptions().columns

    @Option(parsing: .unconditional, help: ArgumentHelp("Most tiles on one sheet; more go on further sheets. Fewer rows go on a sheet that would be taller than the format allows (jpg 65535, webp 16383 pixels).", valueName: "n"))
    var maxSheet: Int = StoryboardOptions().tilesPerSheet

    @Option(help: ArgumentHelp("Sheet format: jpg (libavcodec's mjpeg), webp (libavcodec's libwebp) or png.", valueName: "format"))
    var format: String = StillImageFormat.jpeg.rawValue

    @Option(parsing: .unconditional, help: ArgumentHelp("JPEG and WebP quality, 1 (smallest) to 100 (best).", valueName: "q"))
    var quality: Int = StoryboardOptions().quality

    @Flag(help: "Decode keyframes only and show the keyframe nearest each tile's time: much faster on long videos, tiles up to half a keyframe interval off.")
    var keyframes = false

    @OptionGroup var batch: BatchOptions

    @OptionGroup(title: "Limits") var limits: LimitOptions

    func makeOptions() throws -> StoryboardOptions {
        guard let format = StillImageFormat(name: format) else {
            throw ClipKitError.invalidOption(name: "--format", reason: "'\(self.format)' is not jpg, webp or png")
        }
        var options = StoryboardOptions(format: format, keyframesOnly: keyframes)
        options.limits = limits.limits
        options.force = batch.force
        options.columns = columns
        options.tilesPerSheet = maxSheet
        options.quality = quality
        if interval != nil && count != nil {
            throw ClipKitError.invalidOption(name: "--count", reason: "give --interval or --count, not both")
        }
        if let interval { options.spacing = .interval(try ClipTime.seconds(interval, option: "--interval")) }
        if let count { options.spacing = .count(count) }
        if let tile { options.tileSize = try Self.tileSize(tile) }
        try options.validate()
        return options
    }

    /// `--tile W` (a width) or `--tile WxH` (a box).
    static func tileSize(_ text: String) throws -> FrameSize {
        let sides = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        let valid = sides.allSatisfy { $0.map { (1...65535).contains($0) } ?? false }
        switch (sides.count, valid) {
        case (1, true): return .width(sides[0]!)
        case (2, true): return .fit(width: sides[0]!, height: sides[1]!)
        default: throw ClipKitError.invalidOption(name: "--tile", reason: "'\(text)' is not a width (160) or WxH (160x90), 1 to 65535 pixels")
        }
    }

    func run() throws {
        var options = StoryboardOptions()
        try InputRunner.validate { options = try makeOptions() }
        var runner = InputRunner(batch: batch, outputExtension: nil, fingerprintOptions: options.fingerprintOptions)
        runner.directoryExtension = "storyboard"
        runner.limits = options.limits
        try runner.run(inputs, output: output) { [options] input, directory, fingerprint in
            var options = options
            options.fingerprint = fingerprint
            let result = try Storyboarder(options: options).makeStoryboard(of: input.url, in: directory)
            let manifest = result.manifest
            var report = Report(input: input.url.path, outputs: [result.directory.path], status: .ok, frames: manifest.tiles.count,
                                durationMs: manifest.durationMs, width: manifest.tile.width, height: manifest.tile.height, bytes: result.bytes)
            report.warnings = result.warnings
            return report
        }
    }
}
