// The WebP/MP4 sinks of the conversion pipeline: decoded frames in, a finished (uncommitted) file out.
import Foundation

/// One WebP or MP4 output asked of a conversion.
struct AnimationTarget: Sendable {
    var url: URL
    var format: AnimationFormat
}

/// What an animation sink hands back: its figures and its complete temp file, which the caller
/// commits once every output of the input is complete.
struct FinishedAnimation: Sendable {
    var result: AnimationResult
    var file: FinishedFile
    /// Damage in the source that was decoded around.
    var warnings: [String]

    /// The result with the bytes of the committed file (its fingerprint included).
    var committedResult: AnimationResult {
        var committed = result
        var info = stat()
        if stat(FileSystemPath.cString(result.url.path), &info) == 0 { committed.bytes = Int(info.st_size) }
        return committed
    }
}

/// What a conversion wrote as animated WebP or MP4.
public struct AnimationResult: Sendable {
    public var url: URL
    public var format: AnimationFormat
    public var width: Int
    public var height: Int
    /// Frames written (a frame replaced within the same tick is not).
    public var frameCount: Int
    public var durationMilliseconds: Int
    public var bytes: Int
}

/// The WebP/MP4 side of one pass: sinks to encode from its decode, or files an earlier decode
/// finished (`--max-bytes`: the GIF's passes may change its size, not theirs).
enum AnimationPlan {
    case encode([AnimationTarget])
    case finished([FinishedAnimation])

    /// The sinks this pass's decode feeds.
    var targets: [AnimationTarget] {
        if case .encode(let targets) = self { return targets }
        return []
    }
}

/// The stage body of one animation sink: frames arrive in output time, the last one lasts until
/// the stream's end. The writer is made at the first frame (its size is the frames'), owned by
/// this stage's thread; its file leaves only finished.
enum AnimationStage {
    static func run(_ input: BoundedQueue<DecodedMessage>, _ output: BoundedQueue<FinishedAnimation>, target: AnimationTarget,
                    options: GIFOptions, budget: ByteBudget, source: String) throws {
        var writer: AnimationWriter?
        while let message = try input.pop() {
            switch message {
            case .frame(let frame):
                try options.limits.checkDeadline(source)
                if writer == nil {
                    writer = try AnimationWriter(destination: target.url, format: target.format, options: options.animation,
                                                 width: frame.image.width, height: frame.image.height, frameRate: options.fps ?? GIFOptions.defaultFPS,
                                                 limits: options.limits, budget: budget)
                }
                try writer?.add(frame.image, time: frame.time)
            case .end(let seconds, let warnings):
                guard let writer else { throw ClipKitError.noFrames(path: source, reason: "no frames to write") }
                try writer.finish(duration: seconds)
                let result = AnimationResult(url: target.url, format: target.format, width: writer.width, height: writer.height,
                                             frameCount: writer.frameCount, durationMilliseconds: Int((seconds * 1000).rounded()),
                                             bytes: writer.byteCount)
                output.push(FinishedAnimation(result: result, file: try writer.handOver(), warnings: warnings))
                return
            }
        }
    }
}

extension ConversionRun {
    /// The WebP/MP4 outputs alone, finished but not committed (`--max-bytes`: its GIF passes may
    /// change the picture's size). Their decode records the pictures for the GIF's passes, which
    /// then decode nothing (`FrameCache`).
    func encodeAnimations(options: GIFOptions) throws -> [FinishedAnimation] {
        guard case .video(let url) = source else { return [] }
        let reader = try VideoReader(url: url, limits: options.limits, fullProbe: true, defaultOptions: nil)
        var read = readOptions(options)
        let records: Bool
        (read.queueCapacity, records) = try recordingQueueCapacity(info: reader.info, options: options, path: url.path, stages: false)
        let producer = try reader.makeProducer(options: read)
        let recording = records && producer is FrameDecoder ? frameCache?.recording(pictures: producer.expectedCount, of: reader.info.decodedPictureBytes) : nil
        let pipeline = Pipeline()
        defer { pipeline.stop() }
        let decoded = decodeStage(pipeline, read: read, from: DecodeHandoff((producer, recording)))
        let branches = pipeline.tee("\(stageLabel).tee", from: decoded, count: outputs.animations.count, capacity: 2)
        let sinks = animationSinks(pipeline, targets: outputs.animations, branches: branches, options: options)
        return try Self.finished(sinks, path: url.path)
    }

    /// One sink per animation target, each on its own stage thread, fed from its branch of the decode.
    func animationSinks(_ pipeline: Pipeline, targets: [AnimationTarget], branches: [BoundedQueue<DecodedMessage>],
                        options: GIFOptions) -> [BoundedQueue<FinishedAnimation>] {
        zip(targets, branches).map { target, branch in
            pipeline.stage("\(stageLabel).\(target.format.rawValue)", from: branch, capacity: 1) {
                [budget = job.budget, path] (input: BoundedQueue<DecodedMessage>, output: BoundedQueue<FinishedAnimation>) in
                try AnimationStage.run(input, output, target: target, options: options, budget: budget, source: path)
            }
        }
    }

    /// Waits for each sink's finished (uncommitted) file.
    static func finished(_ sinks: [BoundedQueue<FinishedAnimation>], path: String) throws -> [FinishedAnimation] {
        try sinks.map { queue in
            guard let finished = try queue.pop() else {
                throw ClipKitError.internalFailure(path: path, reason: "an animation writer ended without its file")
            }
            return finished
        }
    }
}
