// One input's conversion: its source, job (started limits, budget, fingerprint) and outputs, and the passes over it.
import Foundation

/// Where a conversion's frames come from.
enum ConversionSource: Sendable {
    /// A video or GIF file.
    case video(URL)
    /// PNG frames (same size) with their delays: no poster, WebP/MP4 or fingerprint.
    case images(ImageSequenceSource, first: URL)

    /// The path errors name.
    var path: String {
        switch self {
        case .video(let url): url.path
        case .images(_, let first): first.path
        }
    }
}

/// The state of converting one input, handed whole to each pass (as gifski hands each stage one
/// settings value) instead of riding on copies of the converter: the source, the job's started
/// limits, budget and fingerprint, the outputs, and the stage names. Passes differ only in the
/// `GIFOptions` they are given (`--max-bytes` narrows the picture, lowers the colours).
struct ConversionRun: Sendable {
    let source: ConversionSource
    /// The converter's options with what a run derives from them: limits started, measuring on
    /// when a quality floor is set, the WebP/MP4 loop count from the GIF's.
    let options: GIFOptions
    let job: OutputJob
    let outputs: ConversionOutputs
    /// The prefix of the stage threads' names (`ck.decode`, `ck.quantise`, ...).
    let stageLabel: String
    /// Called on the writing thread after each frame: (frames done, expected total if known).
    let progress: (@Sendable (Int, Int?) -> Void)?
    /// `--max-bytes`: the frames one pass decoded, replayed by the passes after it.
    let frameCache: FrameCache?

    init(source: ConversionSource, options: GIFOptions, job: OutputJob, outputs: ConversionOutputs, stageLabel: String,
         progress: (@Sendable (Int, Int?) -> Void)?) {
        var options = options
        options.limits = job.limits
        if options.minQuality != nil { options.measure = true }
        // WebP's count is of plays; the GIF's NETSCAPE count N plays N+1 times, none plays once.
        options.animation.loopCount = options.loopCount.map { $0 == 0 ? 0 : min($0 + 1, 65535) } ?? 1
        self.source = source
        self.options = options
        self.job = job
        self.outputs = outputs
        self.stageLabel = stageLabel
        self.progress = progress
        frameCache = options.maxBytes != nil && outputs.gif != nil ? FrameCache(limits: options.limits) : nil
    }

    var path: String { source.path }

    /// Converts: one pass feeding every output, or (a GIF with `maxBytes`) the WebP/MP4 files
    /// from a decode of their own, then the GIF's passes until one fits (`GIFFittingPasses`).
    func convert() throws -> ConversionResult {
        guard outputs.gif != nil, options.maxBytes != nil else {
            switch try pass(options, animations: .encode(outputs.animations)) {
            case .written(let result):
                return result
            case .belowFloor(let gif):
                throw ClipKitError.cannotFit(path: path, reason: String(
                    format: "the GIF measures SSIMULACRA2 %.1f, below --min-quality %.3g (nothing written): lower --lossy, raise --quality or --colors, or lower --min-quality",
                    gif.ssimulacra2 ?? 0, options.minQuality ?? 0))
            case .missed:
                throw ClipKitError.internalFailure(path: path, reason: "a GIF without a byte limit did not fit")
            }
        }
        var held: [FinishedAnimation] = []
        if !outputs.animations.isEmpty {
            var animationOptions = options
            animationOptions.maxBytes = nil
            animationOptions.palette = .perFrame
            held = try encodeAnimations(options: animationOptions)
        }
        return try convertFitting(animations: .finished(held))
    }

    /// The frames of one pass: the producer (none when recorded pictures are replayed), how many
    /// are expected, the queue depth, whether frames keep transparency, the clip's palette
    /// (`--palette global`), and the pictures (`FrameCache`) the producer records for the passes
    /// after this one, or that are replayed instead of a producer.
    private struct Opened {
        var producer: (any FrameProducer)?
        var expectedCount: Int?
        var read: FrameReadOptions
        var transparentFrames: Bool
        var globalPalette: Palette?
        var pictures: DecodedFrames?
    }

    private func open(_ options: GIFOptions) throws -> Opened {
        var read = readOptions(options)
        switch source {
        case .images(let images, _):
            read.queueCapacity = 2
            return Opened(producer: images, expectedCount: images.expectedCount, read: read, transparentFrames: images.hasTransparency)
        case .video(let url):
            var palette: Palette?
            if options.palette == .global, outputs.gif != nil {
                let histogram = try gatherColors(video: url, options: options)
                palette = Quantizer(maxColors: options.colorsBesideTransparent, errorTarget: Double(options.paletteError))
                    .palette(for: histogram)
            }
            if let frames = frameCache?.take(for: read), let source = frames.source {
                // The pictures a pass before decoded, scaled again: no demuxer, no decoder.
                read.queueCapacity = try Self.queueCapacity(info: source.info, options: options, path: url.path)
                return Opened(expectedCount: DecodedFramesReplay.expectedCount(source, options: read), read: read,
                              transparentFrames: source.info.hasAlpha, globalPalette: palette, pictures: frames)
            }
            let reader = try VideoReader(url: url, limits: options.limits, fullProbe: true, defaultOptions: nil)
            // Refuse before decoding when the stretch to convert is known to be too long.
            if let duration = reader.info.duration {
                try options.limits.checkSourceSpan(min(options.end ?? duration, duration) - options.start, path: url.path)
            }
            read.queueCapacity = try Self.queueCapacity(info: reader.info, options: options, path: url.path)
            let producer = try reader.makeProducer(options: read)
            let expected = producer.expectedCount
            // Only a video decoder records (a GIF source decodes every pass, as before).
            let recording = producer is FrameDecoder ? frameCache?.recording(pictures: expected, of: reader.info.decodedPictureBytes) : nil
            // Transparency is kept: such frames are written whole, each clearing the last.
            return Opened(producer: producer, expectedCount: expected, read: read, transparentFrames: reader.info.hasAlpha,
                          globalPalette: palette, pictures: recording)
        }
    }

    /// One decode into every output with `options`: decode -> (quantise -> GIF writer, poster,
    /// WebP/MP4 sinks), then every output committed together. With `--max-bytes` the GIF's
    /// writer may stop the pass early (`GIFPassWriter`); `mayStopUnder` lets it stop for a
    /// projection far under the limit too (`mayStopEarly` false: it writes to the end), and
    /// `frameCount` (learned by a pass before) replaces the count the producer expects.
    func pass(_ options: GIFOptions, animations: AnimationPlan, mayStopUnder: Bool = false, mayStopEarly: Bool = true,
              frameCount: Int? = nil) throws -> PassOutcome {
        let opened = try open(options)
        let read = opened.read, capacity = read.queueCapacity
        let globalPalette = opened.globalPalette, transparentFrames = opened.transparentFrames
        let expectedCount = frameCount ?? opened.expectedCount
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        // Handed to the decode thread whole, so that the pictures can move on to the next pass from there.
        let decoded = decodeStage(pipeline, read: read, from: DecodeHandoff((opened.producer, opened.pictures)))
        // One branch of the decoded frames per sink: the GIF's quantiser, the poster, each animation.
        let targets = animations.targets
        let sinks = (outputs.gif == nil ? 0 : 1) + (outputs.poster == nil ? 0 : 1) + targets.count
        var branches = pipeline.tee("\(stageLabel).tee", from: decoded, count: sinks, capacity: min(capacity, 2))[...]
        // Lossy LZW: the writer tells the quantiser what it shows, by bands of rows as it writes.
        let shownFeedback: BoundedQueue<ShownReport>? = options.feedsShownBack && !transparentFrames
            ? pipeline.queue(capacity: ShownReport.queueCapacity) : nil
        let quantized = outputs.gif.map { _ in
            pipeline.stage("\(stageLabel).quantise", from: branches.removeFirst(), capacity: min(capacity, 2)) {
                [path] (input: BoundedQueue<DecodedMessage>, output: BoundedQueue<QuantizedMessage>) in
                var stage = GIFQuantizeStage(options: options, globalPalette: globalPalette, transparentFrames: transparentFrames, source: path,
                                             shownFeedback: shownFeedback)
                try stage.run(input, output)
            }
        }
        let posterImage = outputs.poster.map { _ in
            pipeline.stage("\(stageLabel).poster", from: branches.removeFirst(), capacity: 1) {
                (input: BoundedQueue<DecodedMessage>, output: BoundedQueue<RGBAImage>) in
                if case .frame(let first) = try input.pop() { output.push(first.image) }
            }
        }
        let animationSinks = self.animationSinks(pipeline, targets: targets, branches: Array(branches), options: options)

        var gif: GIFResult?
        var commit = OutputCommit()
        if let destination = outputs.gif, let quantized {
            var writer = GIFPassWriter(run: self, options: options, destination: destination, globalPalette: globalPalette,
                                       expectedCount: expectedCount)
            writer.shownFeedback = shownFeedback
            if options.measure {
                writer.meter = GIFMeterStage(pipeline, label: stageLabel, capacity: min(capacity, 2), deferred: options.maxBytes != nil && mayStopEarly,
                                             limits: options.limits, path: path)
            }
            writer.mayStopUnder = mayStopUnder
            writer.mayStopEarly = mayStopEarly
            switch try writer.write(quantized) {
            case .written(let result, let file):
                if let floor = options.minQuality, let score = result.ssimulacra2, score < floor { return .belowFloor(result) }
                gif = result
                commit.add(file, as: .main)
            case .missed(let probe):
                return .missed(probe)
            }
        }
        let finished: [FinishedAnimation]
        switch animations {
        case .encode: finished = try Self.finished(animationSinks, path: path)
        case .finished(let held): finished = held
        }
        // Asked for once the pixels are done: the hash has run beside the decode.
        let fingerprint = try job.fingerprint()
        if let poster = outputs.poster, let posterImage {
            commit.add(try writePoster(poster, from: posterImage, fingerprint: fingerprint), as: .poster)
        }
        for animation in finished {
            let format = animation.result.format
            commit.add(animation.file, as: .companion, trailer: fingerprint?.trailingBox(for: format), riffSize: format == .webp)
        }
        try commit.commit()
        let warnings = gif?.warnings ?? finished.first?.warnings ?? []
        return .written(ConversionResult(gif: gif, animations: finished.map(\.committedResult), warnings: warnings))
    }

    /// A decode stage's producer and pictures, taken by its thread.
    typealias DecodeHandoff = LockedBox<(producer: (any FrameProducer)?, pictures: DecodedFrames?)?>

    /// A pass's decode stage: the producer (recording its pictures into `pictures` for the passes
    /// after it), or, without one, `pictures` replayed; the pictures are kept for the next pass
    /// when complete (`FrameCache`).
    func decodeStage(_ pipeline: Pipeline, read: FrameReadOptions, from handoff: DecodeHandoff) -> BoundedQueue<DecodedMessage> {
        pipeline.stage("\(stageLabel).decode", capacity: read.queueCapacity) { [frameCache, path] (queue: BoundedQueue<DecodedMessage>) in
            guard let (producer, pictures) = handoff.withLock({ $0.take() }) else { return }
            var output = FrameOutput(queue: queue, options: read)
            if let producer {
                output.recording = pictures
                try producer.run(into: &output)
            } else if let pictures {
                try DecodedFramesReplay.run(pictures, options: read, path: path, into: &output)
            }
            // The pictures recorded or replayed, for the next pass (kept when complete).
            if let frameCache, let pictures { frameCache.keep(pictures, for: read) }
        }
    }

    /// The poster: the first decoded frame as a PNG (RGBA when it has transparent pixels, like a thumbnail).
    private func writePoster(_ poster: URL, from images: BoundedQueue<RGBAImage>, fingerprint: Fingerprint?) throws -> AtomicFile {
        guard let image = try images.pop() else {
            throw ClipKitError.noFrames(path: poster.path, reason: "no frame for the poster")
        }
        let bytes = try PNGWriter.encode(image, channels: image.isOpaque ? .rgb : .rgba, filter: .sub, fingerprint: fingerprint)
        let file = try AtomicFile(destination: poster, budget: job.budget)
        try file.write(bytes)
        return file
    }

    /// What a reader decodes for `options`: frames arrive in output time (the speed applied).
    func readOptions(_ options: GIFOptions) -> FrameReadOptions {
        var read = FrameReadOptions(start: options.start, end: options.end, fps: options.fps, size: options.size)
        read.speed = options.speed
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
        // Converted and turned frames in the decoder, 3 + 2 + 2 queued, the quantiser's frame and
        // reference; measured, the source frames of the ticks queued for the measure stage (2, or 1).
        let measured = options.measure ? 1 : 0
        if limits.picturesInMemory(of: frameBytes) >= 11 + 2 * measured { return 3 }
        try limits.checkMemory(pictures: 7 + measured, of: frameBytes, what: "frames in flight", path: path)
        return 1
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
