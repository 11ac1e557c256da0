// Video (or images) to GIF as a pipeline of named stages: decode -> quantise -> write, and a poster from the same decode.
import Foundation

/// Converts a clip to a looping GIF.
///
/// The stages, each on its own joined thread, joined by bounded queues (memory is bounded by
/// their capacities and the frame size, never by the clip length):
///
///     decode  --DecodedMessage-->  quantise  --QuantizedMessage-->  write (caller's thread)
///         \--> poster (with `poster:`): the first frame as a PNG, from the same decode
///
/// Each hop ends with an `end` message carrying the output duration. An error in any stage, or
/// the deadline of `options.limits`, stops every stage; all have exited before `convert` returns
/// or throws, and nothing is left at the destinations unless every output is complete.
public struct GIFConverter: Sendable {
    public var options: GIFOptions
    /// Called on the writing thread after each frame: (frames done, expected total if known).
    public var progress: (@Sendable (Int, Int?) -> Void)?
    /// The prefix of the stage threads' names (`ck.decode`, `ck.quantise`, ...): tests give each
    /// run its own, to find that run's threads among others'.
    var stageLabel = "ck"
    /// Whether `--max-bytes` writers may stop early (off for the rerun after a wrong projection).
    var pruneLadder = true
    /// WebP/MP4 outputs written from the GIF's decode.
    var animationTargets: [AnimationTarget] = []
    /// WebP/MP4 outputs finished by an earlier pass, committed with the GIF.
    var heldAnimations: [FinishedAnimation] = []

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
        var gif: URL?
        var targets: [AnimationTarget] = []
        for output in outputs {
            let ext = output.pathExtension.lowercased()
            if let format = AnimationFormat(pathExtension: ext) {
                guard !targets.contains(where: { $0.format == format }) else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "one \(format.rawValue) output per input: the second would be the same file")
                }
                targets.append(AnimationTarget(url: output, format: format))
            } else {
                guard gif == nil else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "one GIF output per input: the second would be the same file")
                }
                gif = output
            }
        }
        guard gif != nil || !targets.isEmpty else {
            throw ClipKitError.invalidOption(name: "-o", reason: "no output given")
        }
        var options = self.options
        options.limits = options.limits.started()
        if options.minQuality != nil { options.measure = true }
        // WebP's count is of plays; the GIF's NETSCAPE count N plays N+1 times, none plays once.
        options.animation.loopCount = options.loopCount.map { $0 == 0 ? 0 : min($0 + 1, 65535) } ?? 1
        let stamp = FingerprintStage(options.fingerprint, input: url, deadline: options.limits.deadline)
        defer { stamp.stop() }
        var converter = self
        guard let destination = gif, options.maxBytes != nil else {
            converter.animationTargets = targets
            return try converter.convertPass(video: url, to: gif, poster: poster, options: options, stamp: stamp)
        }
        if !targets.isEmpty {
            var animations = self
            animations.animationTargets = targets
            var animationOptions = options
            animationOptions.maxBytes = nil
            animationOptions.palette = .perFrame
            converter.heldAnimations = try animations.encodeAnimations(video: url, options: animationOptions)
        }
        return try converter.convertFitting(video: url, to: destination, poster: poster, options: options, stamp: stamp)
    }

    /// One decode of `url` into a GIF with `options` (a second pass for `--max-bytes` has others);
    /// run again without early stops when one was premature, so the output never depends on timing.
    func convertPass(video url: URL, to destination: URL?, poster: URL?, options: GIFOptions,
                             stamp: FingerprintStage) throws -> ConversionResult {
        do {
            return try convertOnce(video: url, to: destination, poster: poster, options: options, stamp: stamp)
        } catch is PrunedTooEarly {
            var converter = self
            converter.pruneLadder = false
            return try converter.convertOnce(video: url, to: destination, poster: poster, options: options, stamp: stamp)
        }
    }

    private func convertOnce(video url: URL, to destination: URL?, poster: URL?, options: GIFOptions,
                             stamp: FingerprintStage) throws -> ConversionResult {
        var palette: Palette?
        if options.palette == .global, destination != nil {
            let histogram = try gatherColors(video: url, options: options)
            palette = Quantizer(maxColors: min(options.colors, 255)).palette(for: histogram)
        }
        let reader = try VideoReader(url: url, limits: options.limits, fullProbe: true, defaultOptions: nil)
        // Refuse before decoding when the stretch to convert is known to be too long.
        if let duration = reader.info.duration {
            try options.limits.checkSourceSpan(min(options.end ?? duration, duration) - options.start, path: url.path)
        }
        let capacity = try Self.queueCapacity(info: reader.info, options: options, path: url.path)
        if options.maxBytes != nil {
            // Each --max-bytes writer holds up to two frames and (when lossy) what the viewer sees.
            let output = options.size.resolve(width: reader.info.width, height: reader.info.height)
            try options.limits.checkMemory(pictures: 3 * Self.ladder(from: options.lossy).count, of: output.width * output.height * 4,
                                           what: "frames of the --max-bytes writers", path: url.path)
        }
        var read = readOptions(options)
        read.queueCapacity = capacity
        let producer = try reader.makeProducer(options: read)
        let expected = producer.expectedCount
        // Transparency is kept: such frames are written whole, each clearing the last.
        return try encode(producer: producer, expectedCount: expected, options: options, globalPalette: palette,
                          transparentFrames: reader.info.hasAlpha, to: destination, poster: poster, capacity: capacity, source: url.path,
                          stamp: stamp)
    }

    /// Assembles images (same size) shown for `delays` centiseconds each into a GIF.
    /// Frames with transparent pixels are written whole, each clearing the last (disposal
    /// background), so transparency survives; opaque frames get the inter-frame optimisation.
    public func convert(images: [URL], delays: [Int], to destination: URL) throws -> GIFResult {
        try options.validate()
        guard !images.isEmpty, images.count == delays.count else {
            throw ClipKitError.invalidOption(name: "inputs", reason: "give at least one image, each with a delay")
        }
        if let bad = delays.first(where: { $0 < 0 || $0 > FramesManifest.maxDelay }) {
            throw ClipKitError.invalidOption(name: "--delay", reason: "delays are 0 to \(FramesManifest.maxDelay) centiseconds, got \(bad)")
        }
        var options = self.options
        options.limits = options.limits.started()
        try options.limits.checkFrames(images.count, path: images[0].path)
        let source = try ImageSequenceSource(images: images, delays: delays, limits: options.limits)
        options.changeThreshold = 0
        options.mergeIdenticalFrames = false
        var converter = self
        converter.animationTargets = []
        converter.heldAnimations = []
        let result = try converter.encode(producer: source, expectedCount: images.count, options: options, globalPalette: nil,
                                          transparentFrames: source.hasTransparency, to: destination, poster: nil, capacity: 2,
                                          source: images[0].path, stamp: FingerprintStage(nil, input: images[0], deadline: .none))
        guard let gif = result.gif else {
            throw ClipKitError.internalFailure(path: destination.path, reason: "no GIF was written")
        }
        return gif
    }

    /// Rebuilds a GIF from an exploded directory's `frames.json`: its frames, delays and
    /// canvas, and its loop count unless `keepLoopCount` is false (then `options.loopCount`).
    public func convert(manifest url: URL, to destination: URL, keepLoopCount: Bool = true) throws -> GIFResult {
        let manifest = try FramesManifest.read(from: url)
        let directory = url.deletingLastPathComponent()
        var converter = self
        if keepLoopCount { converter.options.loopCount = manifest.loopCount }
        converter.options.size = .original
        let images = manifest.frames.map { directory.appendingPathComponent($0.file) }
        for image in images {
            let size = try PNGReader.size(of: image)
            if size != (manifest.canvas.width, manifest.canvas.height) {
                throw ClipKitError.corrupt(path: image.path, reason: "is \(size.0)x\(size.1) but the manifest's canvas is \(manifest.canvas.width)x\(manifest.canvas.height)")
            }
        }
        return try converter.convert(images: images, delays: manifest.frames.map(\.delayCs), to: destination)
    }

    // MARK: - The pipeline

    func readOptions(_ options: GIFOptions) -> FrameReadOptions {
        var read = FrameReadOptions(start: options.start, end: options.end, fps: options.fps / options.speed, size: options.size)
        read.queueCapacity = 3
        read.limits = options.limits
        return read
    }

    /// How many frames each hop may hold, from `--max-memory`: the default depth when the
    /// frames are small, one per hop when they are large, an error when even that does not fit.
    /// A GIF source adds its canvas and the copy a shown frame keeps.
    static func queueCapacity(info: VideoInfo, options: GIFOptions, path: String) throws -> Int {
        let output = options.size.resolve(width: info.width, height: info.height)
        let frameBytes = output.width * output.height * 4
        let sourceBytes = info.container == "gif" ? 2 * info.width * info.height * 4 : 0
        var limits = options.limits
        limits.maxMemory -= min(sourceBytes, limits.maxMemory)
        // Converted and turned frames in the decoder, 3 + 2 + 2 queued, the quantiser's frame and reference.
        if limits.picturesInMemory(of: frameBytes) >= 11 { return 3 }
        try limits.checkMemory(pictures: 7, of: frameBytes, what: "frames in flight", path: path)
        return 1
    }

    private func encode(producer: sending any FrameProducer, expectedCount: Int?, options: GIFOptions, globalPalette: Palette?,
                        transparentFrames: Bool, to destination: URL?, poster: URL?, capacity: Int, source: String,
                        stamp: FingerprintStage) throws -> ConversionResult {
        let budget = ByteBudget(limit: options.limits.maxOutputBytes)
        let progress = self.progress
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        let decoded = pipeline.stage("\(stageLabel).decode", capacity: capacity) { (queue: BoundedQueue<DecodedMessage>) in
            var output = FrameOutput(queue: queue, maxFrames: nil)
            try producer.run(into: &output)
        }
        // One branch of the decoded frames per sink: the GIF's quantiser, the poster, each animation.
        let sinks = (destination == nil ? 0 : 1) + (poster == nil ? 0 : 1) + animationTargets.count
        var branches = pipeline.tee("\(stageLabel).tee", from: decoded, count: sinks, capacity: min(capacity, 2))[...]
        let quantized = destination.map { _ in
            pipeline.stage("\(stageLabel).quantise", from: branches.removeFirst(), capacity: min(capacity, 2)) {
                (input: BoundedQueue<DecodedMessage>, output: BoundedQueue<QuantizedMessage>) in
                var stage = GIFQuantizeStage(options: options, globalPalette: globalPalette, transparentFrames: transparentFrames,
                                             source: source)
                try stage.run(input, output)
            }
        }
        let posterImage = poster.map { _ in
            pipeline.stage("\(stageLabel).poster", from: branches.removeFirst(), capacity: 1) {
                (input: BoundedQueue<DecodedMessage>, output: BoundedQueue<RGBAImage>) in
                if case .frame(let first) = try input.pop() { output.push(first.image) }
            }
        }
        let animations = animationSinks(pipeline, branches: Array(branches), options: options, budget: budget, source: source)
        // The poster, encoded once the fingerprint is known; committed right after the GIF.
        let writePoster = { (fingerprint: Fingerprint?) throws -> AtomicFile? in
            guard let poster, let posterImage else { return nil }
            guard let image = try posterImage.pop() else {
                throw ClipKitError.noFrames(path: poster.path, reason: "no frame for the poster")
            }
            // Like a thumbnail: RGBA when the frame has transparent pixels.
            let bytes = try PNGWriter.encode(image, channels: image.isOpaque ? .rgb : .rgba, filter: .sub, fingerprint: fingerprint)
            let file = try AtomicFile(destination: poster, budget: budget)
            try file.write(bytes)
            return file
        }
        // The animations' finished files, and those of an earlier pass (`heldAnimations`).
        let finishAnimations = { () throws -> [FinishedAnimation] in
            try Self.finished(animations, source: source) + heldAnimations
        }
        guard let destination, let quantized else {
            let finished = try finishAnimations()
            let fingerprint = try stamp.value()
            let posterFile = try writePoster(fingerprint)
            for animation in finished { try animation.record(fingerprint) }
            for animation in finished { try animation.file.commit() }
            try posterFile?.commit()
            return ConversionResult(gif: nil, animations: finished.map(\.committedResult), warnings: finished.first?.warnings ?? [])
        }
        if let maxBytes = options.maxBytes {
            let gif = try writeFitting(quantized, pipeline: pipeline, maxBytes: maxBytes, prune: pruneLadder, options: options,
                                       globalPalette: globalPalette, destination: destination, source: source,
                                       expectedCount: expectedCount, fingerprint: { try stamp.value() }, poster: writePoster)
            return ConversionResult(gif: gif, animations: heldAnimations.map(\.committedResult), warnings: gif.warnings)
        }
        var writer = GIFWriterStage(destination: destination, source: source, options: options, globalPalette: globalPalette, budget: budget)
        var done = 0
        while let message = try quantized.pop() {
            try options.limits.checkDeadline(source)
            switch message {
            case .frame(let frame):
                try writer.add(frame)
                done += 1
                progress?(done, expectedCount)
            case .end(let duration, let warnings):
                let fingerprint = try stamp.value()
                var result = try writer.finish(duration: duration, fingerprint: fingerprint)
                result.warnings = warnings
                if let floor = options.minQuality, let score = result.ssimulacra2, score < floor {
                    throw ClipKitError.cannotFit(path: source, reason: String(
                        format: "the GIF measures SSIMULACRA2 %.1f, below --min-quality %.3g (nothing written): lower --lossy, raise --quality or --colors, or lower --min-quality",
                        score, floor))
                }
                let finished = try finishAnimations()
                for animation in finished { try animation.record(fingerprint) }
                let posterFile = try writePoster(fingerprint)
                try writer.commit()
                try posterFile?.commit()
                for animation in finished { try animation.file.commit() }
                return ConversionResult(gif: result, animations: finished.map(\.committedResult), warnings: warnings)
            }
        }
        throw ClipKitError.internalFailure(path: destination.path, reason: "the frame stream ended without its end")
    }

    /// The colours of every frame, for `--palette global`: a decoding pass that keeps only a histogram.
    private func gatherColors(video url: URL, options: GIFOptions) throws -> ColorHistogram {
        let frames = try VideoReader(url: url, limits: options.limits, fullProbe: false).frames(options: readOptions(options))
        defer { frames.cancel() }
        var histogram = ColorHistogram()
        while let frame = try frames.next() { histogram.add(frame.image) }
        return histogram
    }
}
