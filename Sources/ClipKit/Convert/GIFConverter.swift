// Video (or images) to GIF as a pipeline of named stages: decode -> quantise -> write, and a poster from the same decode.
import Foundation

/// Converts a clip to a looping GIF.
///
/// The stages, each on its own joined thread, joined by bounded queues (memory is bounded by
/// their capacities and the frame size, never by the clip length):
///
///     decode  --DecodedMessage-->  quantise  --QuantizedMessage-->  write (`GIFPassWriter`)
///         |--> poster (with `poster:`): the first frame as a PNG, from the same decode
///         \--> webp, mp4 (`AnimationStage`)
///
/// Frames travel in output time (the speed applied by the reader). Each hop ends with an `end`
/// message carrying the output duration. An error in any stage, or the deadline of
/// `options.limits`, stops every stage; all have exited before `convert` returns or throws, and
/// nothing is left at the destinations unless every output is complete (`OutputCommit`). The
/// state of one input's conversion is a `ConversionRun`; `--max-bytes` runs passes over it
/// (`GIFFittingPasses`).
public struct GIFConverter: Sendable {
    public var options: GIFOptions
    /// Called on the writing thread after each frame: (frames done, expected total if known).
    public var progress: (@Sendable (Int, Int?) -> Void)?
    /// The prefix of the stage threads' names (`ck.decode`, `ck.quantise`, ...): tests give each
    /// run its own, to find that run's threads among others'.
    var stageLabel = "ck"

    public init(options: GIFOptions = GIFOptions(), progress: (@Sendable (Int, Int?) -> Void)? = nil) {
        self.options = options
        self.progress = progress
    }

    /// Converts the video (or GIF) at `url` into a GIF at `destination`; with `poster`, also
    /// writes the GIF's first frame there as a PNG, from the same decode.
    public func convert(video url: URL, to destination: URL, poster: URL? = nil) throws -> GIFResult {
        guard let gif = try convert(video: url, outputs: [destination], poster: poster).gif else {
            throw ClipKitError.internalFailure(path: destination.path, reason: "no GIF was written")
        }
        return gif
    }

    /// Converts the video (or GIF) at `url` into each of `outputs`, by extension: `.gif` (at most
    /// one), `.webp` (animated WebP) and `.mp4` (H.264), from one decode, timed alike; with
    /// `poster`, also the first frame as a PNG. Outputs are committed together once all are
    /// complete; on any error none is written. With `maxBytes` (which shapes the GIF only),
    /// the WebP/MP4 outputs come from a decode of their own, as the GIF's passes may shrink it.
    public func convert(video url: URL, outputs: [URL], poster: URL? = nil) throws -> ConversionResult {
        try options.validate()
        let plan = try ConversionOutputs(outputs, poster: poster)
        return try OutputJob.run(url, limits: options.limits, fingerprint: options.fingerprint, checkInput: false) { job in
            try ConversionRun(source: .video(url), options: options, job: job, outputs: plan, stageLabel: stageLabel,
                              progress: progress).convert()
        }
    }

    /// The file extensions (lowercased) `convert(images:delays:to:)` reads as still frames:
    /// PNG (libpng) and JPEG (FFmpeg, upright by its EXIF orientation).
    public static var imageFrameExtensions: Set<String> { ImageSequenceSource.extensions }

    /// Assembles images (same size) shown for `delays` centiseconds each into a GIF, at
    /// `options.size` (never larger than the images; `.original` keeps their size).
    /// Transparency survives: frames with transparent pixels are drawn over the last where no
    /// pixel turns transparent, else the last clears the canvas (disposal background); opaque
    /// frames get the inter-frame optimisation.
    public func convert(images: [URL], delays: [Int], to destination: URL) throws -> GIFResult {
        try options.validate()
        guard !images.isEmpty, images.count == delays.count else {
            throw ClipKitError.invalidOption(name: "inputs", reason: "give at least one image, each with a delay")
        }
        try TimingBounds.checkDelays(delays, in: TimingBounds.frameDelay, name: "--delay")
        var options = self.options
        options.changeThreshold = 0
        options.givenSettings.insert(.changeThreshold)
        options.mergeIdenticalFrames = false
        // A fingerprint records that clipkit wrote the GIF (of the first image's bytes: a later
        // run redoes such a GIF rather than skipping it, as it does not hash every frame).
        return try OutputJob.run(images[0], limits: options.limits, fingerprint: options.fingerprint, checkInput: false) { job in
            try job.limits.checkFrames(images.count, path: images[0].path)
            let source = try ImageSequenceSource(images: images, delays: delays, limits: job.limits)
            let result = try ConversionRun(source: .images(source, first: images[0]), options: options, job: job,
                                           outputs: ConversionOutputs(gif: destination), stageLabel: stageLabel, progress: progress).convert()
            guard let gif = result.gif else {
                throw ClipKitError.internalFailure(path: destination.path, reason: "no GIF was written")
            }
            return gif
        }
    }

    /// Rebuilds a GIF from an exploded directory's `frames.json`: its frames, delays and
    /// canvas (scaled to `options.size`, as `convert(images:delays:to:)`), and its loop count
    /// unless `keepLoopCount` is false (then `options.loopCount`).
    public func convert(manifest url: URL, to destination: URL, keepLoopCount: Bool = true) throws -> GIFResult {
        let manifest = try FramesManifest.read(from: url)
        let directory = url.deletingLastPathComponent()
        var converter = self
        if keepLoopCount { converter.options.loopCount = manifest.loopCount }
        let images = manifest.frames.map { directory.appendingPathComponent($0.file) }
        for image in images {
            let size = try PNGReader.size(of: image)
            if size != (manifest.canvas.width, manifest.canvas.height) {
                throw ClipKitError.corrupt(path: image.path, reason: "is \(size.0)x\(size.1) but the manifest's canvas is \(manifest.canvas.width)x\(manifest.canvas.height)")
            }
        }
        return try converter.convert(images: images, delays: manifest.frames.map(\.delayCs), to: destination)
    }

    /// `convert(video:to:poster:)` without blocking the caller's task.
    public func convert(video url: URL, to destination: URL, poster: URL? = nil) async throws -> GIFResult {
        let converter = self
        return try await runOnThread("ck.convert") { try converter.convert(video: url, to: destination, poster: poster) }
    }
}
