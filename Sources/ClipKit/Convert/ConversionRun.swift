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
    /// The source is a GIF (by its signature): its own timing, exact drawing and one palette
    /// apply (`readRate`, the threshold below, `gifPaletteSharing`).
    let sourceIsGIF: Bool
    /// The source's frames may keep their own times (`readRate`): a GIF's, or an animated PNG's
    /// whose frames all last 2 cs or more.
    let sourceKeepsTiming: Bool
    /// The converter's options with what a run derives from them: limits started, measuring on
    /// when a quality floor is set, a GIF input's threshold, the WebP/MP4 loop count from the GIF's.
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
        if case .video(let url) = source {
            sourceIsGIF = GIFFrameSource.isGIF(url)
            sourceKeepsTiming = sourceIsGIF || (PNGReader.frameDelays(url)?.allSatisfy { $0 >= Self.shortestOwnDelay } ?? false)
        } else {
            (sourceIsGIF, sourceKeepsTiming) = (false, false)
        }
        // A GIF input is drawn exactly unless a threshold (or a `--quality` level or byte limit,
        // which set one) is asked for: its pictures are palettised already, so the default
        // threshold saved 0.17% of the bytes of 205 GIFs re-encoded, and dropped changes a viewer
        // sees (a fade in steps of 8 levels lost every other frame).
        if sourceIsGIF, !options.givenSettings.contains(.changeThreshold), options.quality == nil, options.maxBytes == nil {
            options.changeThreshold = 0
        }
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

    /// One decode into every output with `options`: decode -> (quantise -> GIF writer, poster,
    /// WebP/MP4 sinks), then every output committed together. With `--max-bytes` the GIF's
    /// writer may stop the pass early (`GIFPassWriter`); `mayStopUnder` lets it stop for a
    /// projection far under the limit too (`mayStopEarly` false: it writes to the end), and
    /// `frameCount` (learned by a pass before) replaces the count the producer expects;
    /// `keepsUnder`: a GIF that fits is written however far under the limit (`GIFPassWriter.keepsUnder`).
    func pass(_ options: GIFOptions, animations: AnimationPlan, mayStopUnder: Bool = false, mayStopEarly: Bool = true,
              keepsUnder: Bool = false, frameCount: Int? = nil, fit: FitDecode? = nil) throws -> PassOutcome {
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        let opened = try open(options, pipeline: pipeline, fit: fit)
        let read = opened.read, capacity = read.queueCapacity
        let globalPalette = opened.globalPalette, transparentFrames = opened.transparentFrames
        let expectedCount = frameCount ?? opened.expectedCount
        let decoded: BoundedQueue<DecodedMessage>
        if let live = opened.live {
            decoded = live
        } else {
            // Handed to the decode thread whole, so that the pictures can move on to the next pass from there.
            let startsFit = opened.startsFit
            decoded = decodeStage(startsFit ? fit?.pipeline ?? pipeline : pipeline, read: read,
                                  from: DecodeHandoff((opened.producer, opened.pictures)), succession: startsFit ? fit?.succession : nil)
        }
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
            writer.keepsUnder = keepsUnder
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
    func decodeStage(_ pipeline: Pipeline, read: FrameReadOptions, from handoff: DecodeHandoff,
                     succession: DecodeSuccession? = nil) -> BoundedQueue<DecodedMessage> {
        pipeline.stage("\(stageLabel).decode", capacity: read.queueCapacity) { [frameCache, path] (queue: BoundedQueue<DecodedMessage>) in
            // Last: a pass still waiting to take the frames over is told there are no more.
            defer { succession?.end() }
            guard let (producer, pictures) = handoff.withLock({ $0.take() }) else { return }
            var output = FrameOutput(queue: queue, options: read)
            do {
                if let producer {
                    output.recording = pictures
                    output.succession = succession
                    try producer.run(into: &output)
                } else if let pictures {
                    try DecodedFramesReplay.run(pictures, options: read, path: path, into: &output)
                }
            } catch {
                // The consumer may be a later pass that took the frames over (its own queue).
                output.queue.finish(throwing: error)
                throw error
            }
            output.queue.finish()
            // The pictures recorded or replayed, for the next pass (kept when complete).
            if let frameCache, let pictures { frameCache.keep(pictures, for: read) }
        }
    }

    /// The rate the source is sampled at: `fps` when given; else nil (every frame at its own
    /// time) for a whole GIF at normal speed or slower, whose delays are all ones browsers play
    /// (2 cs or more), or such an animated PNG (`sourceKeepsTiming`), and `GIFOptions.defaultFPS`
    /// for the rest. (A 20 fps GIF came out at 10 fps, half its frames gone, where gifsicle and
    /// ffmpeg keep them all; an APNG of 50 ms frames lost every other one.) Sped up, its delays
    /// could fall under 2 cs; cut mid-frame (`--start`, `--duration`), its first or last frame
    /// could last 1 cs, which browsers play as 10.
    func readRate(_ options: GIFOptions) -> Double? {
        if let fps = options.fps { return fps }
        if sourceKeepsTiming, options.speed <= 1, options.start == 0, options.end == nil { return nil }
        return GIFOptions.defaultFPS
    }

    /// The shortest frame an animated PNG may have to keep its own timing: 2 cs, the shortest
    /// GIF delay browsers play as written.
    static let shortestOwnDelay = 0.02

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
        var read = FrameReadOptions(start: options.start, end: options.end, fps: readRate(options), size: options.size)
        read.speed = options.speed
        read.queueCapacity = 3
        read.limits = options.limits
        return read
    }

    /// How many frames each hop of a pass over the video (or GIF) `info` with `options` may
    /// hold (`queueCapacity(_:deepest:limits:path:)`); `stages` false for a decode that feeds
    /// WebP/MP4 only, `held` the bytes of pictures kept for other passes (`FrameCache`). A GIF
    /// source adds its canvas and the copy a shown frame keeps.
    func queueCapacity(info: VideoInfo, options: GIFOptions, path: String, stages: Bool = true, held: Int = 0) throws -> Int {
        var memory = passMemory(output: options.size.resolve(width: info.width, height: info.height), options: options)
        memory.sourceBytes = held
        // A decode for WebP/MP4 alone holds no quantised frames, no shown canvas, no meter.
        (memory.stages, memory.lossy, memory.measured) = (stages, memory.lossy && stages, memory.measured && stages)
        if info.container == "gif" {
            memory.sourceBytes += 2 * info.width * info.height * 4
            // Its displayed frames are counted by the scan: a one-image GIF never has more than
            // one picture in flight (an 8000x8000 one was refused at 9 pictures, 2.3 GB, where
            // its pass peaks near 600 MB).
            memory.frameCount = info.frameCount
        }
        return try Self.queueCapacity(memory, deepest: 3, limits: options.limits, path: path)
    }

    /// `queueCapacity(info:options:path:stages:held:)` for a pass that decodes, and whether it
    /// may record its pictures for the passes after it (`FrameCache`, a video's only): they count
    /// with the pass, and a pass that fits only without them does not record.
    func recordingQueueCapacity(info: VideoInfo, options: GIFOptions, path: String, stages: Bool) throws -> (Int, records: Bool) {
        let cacheBytes = info.container == "gif" ? 0 : frameCache?.budget ?? 0
        do {
            return (try queueCapacity(info: info, options: options, path: path, stages: stages, held: cacheBytes), cacheBytes > 0)
        } catch ClipKitError.limitExceeded where cacheBytes > 0 {
            return (try queueCapacity(info: info, options: options, path: path, stages: stages), false)
        }
    }

    /// What a pass with `options` over frames of `output` holds besides its queues. Under
    /// `--max-bytes` a pass at this size is counted lossy when any `--quality` level down to
    /// the floor is (the levels share the full size; only narrower pictures go lower), so the
    /// first pass refuses what a later one could not do.
    func passMemory(output: (width: Int, height: Int), options: GIFOptions) -> GIFPassMemory {
        var memory = GIFPassMemory(output: output)
        memory.lossy = options.lossy > 0 || (self.options.maxBytes != nil && options.moved(toQuality: FitSearch.floor).lossy > 0)
        memory.measured = options.measure
        // Small pictures wait for their shared palette (`--palette auto`).
        if SharedPalettePool.applies(width: output.width, height: output.height, options: options) {
            memory.sourceBytes += SharedPalettePool.budget(limits: options.limits)
        }
        return memory
    }

    /// How many frames each hop may hold, from `--max-memory`: `deepest` when the pass fits
    /// with it, one per hop when only that fits, an error when even that does not (before
    /// anything is decoded: the sizes come from the headers).
    static func queueCapacity(_ memory: GIFPassMemory, deepest: Int, limits: Limits, path: String) throws -> Int {
        if memory.bytes(capacity: deepest) <= limits.maxMemory { return deepest }
        try limits.checkMemory(bytes: memory.bytes(capacity: 1), for: memory.description(capacity: 1), path: path)
        return 1
    }
}
