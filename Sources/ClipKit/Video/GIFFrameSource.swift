// GIF input for VideoReader: the displayed frames of `GIFAnimation`, sampled by time like video frames.
import Foundation

/// Produces a `VideoReader`'s frames from a GIF on the decode thread.
final class GIFFrameSource: FrameProducer {
    let url: URL
    private let options: FrameReadOptions
    private let animation: GIFAnimation
    let info: VideoInfo

    /// True when the file starts with a GIF signature, whatever its name. Never opens what is
    /// not a regular file: reading a FIFO would block.
    static func isGIF(_ url: URL) -> Bool {
        guard (try? InputFile.check(url.path)) != nil, let handle = FileSystemPath.handleForReading(url.path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 6)) ?? Data()
        return head == Data("GIF87a".utf8) || head == Data("GIF89a".utf8)
    }

    /// A GIF described as a video: its canvas, displayed frames and their played duration.
    static func info(of scan: GIFScan) -> VideoInfo {
        let total = scan.frameDelays.reduce(0, +)
        return VideoInfo(container: "gif", codec: "gif", codedWidth: scan.canvasWidth, codedHeight: scan.canvasHeight,
                         rotation: .identity, duration: Double(total) / 100, frameRate: nil, pixelFormat: "pal8",
                         bitDepth: 8, frameCount: scan.frames.count, hasAudio: false, hasAlpha: scan.mayBeTransparent)
    }

    /// `animation` must not have shown a frame yet.
    init(url: URL, animation: GIFAnimation, options: FrameReadOptions) throws {
        self.url = url
        self.options = options
        self.animation = animation
        info = Self.info(of: animation.scan)
        if let duration = info.duration, options.start >= duration {
            throw ClipKitError.startPastEnd(path: url.path, start: options.start, duration: duration)
        }
    }

    var expectedCount: Int? {
        options.expectedCount(duration: info.duration, frameRate: nil, sourceFrames: animation.scan.frames.count)
    }

    func run(into output: inout FrameOutput) throws {
        var sampler = FrameSampler(start: options.start, end: options.end, interval: options.tickInterval)
        let size = options.size.resolve(width: info.width, height: info.height)
        let scaler = Scaler()
        var candidate: (image: RGBAImage, time: Double)?

        /// Queues `candidate` for every output place it fills; false once output should stop.
        func emit(nextTime: Double?, clipEnd: Double?) throws -> Bool {
            guard let (image, time) = candidate else { return true }
            let places = sampler.emissions(candidateTime: time, nextTime: nextTime, clipEnd: clipEnd)
            guard !places.isEmpty else { return true }
            let scaled = (size.width, size.height) == (image.width, image.height)
                ? image : try scaler.rgba(from: image, width: size.width, height: size.height)
            return output.push(scaled, at: places, sourceTime: time)
        }

        var time = 0.0
        var stopped = false
        var sawLast = true
        while let frame = try animation.next() {
            try options.checkTimestamp(time, path: url.path)
            if candidate != nil, !(try emit(nextTime: time, clipEnd: nil)) {
                stopped = true
                break
            }
            candidate = (frame.canvas, time)
            time += Double(GIFScan.playedDelay(frame.delay)) / 100
            if sampler.isExhausted(candidateTime: time) {
                sawLast = frame.index == animation.scan.frames.count - 1
                break
            }
        }
        if stopped { sawLast = false }
        if !stopped { _ = try emit(nextTime: nil, clipEnd: time) }
        guard output.pushedCount > 0 else { throw ClipKitError.noFrames(path: url.path, reason: "no frame in the requested range") }
        // Past the last image, only damage after it (a missing trailer) is left to report.
        if sawLast { try animation.readToEnd() }
        output.end(duration: max(min(options.end ?? time, time) - options.start, 0), warnings: animation.warnings)
    }
}
