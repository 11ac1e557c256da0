// GIF input for VideoReader: ClipKit's own decoder and compositor (as browsers show it, as explode
// does), sampled by time like video frames.
import Foundation

/// Produces a `VideoReader`'s frames from a GIF on the decode thread.
final class GIFFrameSource {
    let url: URL
    private let options: FrameReadOptions
    private let delays: [Int]
    private let groups: [Range<Int>]
    let info: VideoInfo

    /// Browsers play delays under 2 cs as 10 cs; timing follows them.
    static func effectiveDelay(_ centiseconds: Int) -> Int { centiseconds < 2 ? 10 : centiseconds }

    /// Reads the header and every delay (no pixels), refusing canvases over `maxPixels`.
    static func info(of url: URL, maxPixels: Int) throws -> (VideoInfo, delays: [Int], groups: [Range<Int>]) {
        let scan = try GIFDecoder(url: url, maxPixels: maxPixels)
        let delays = try scan.remainingDelays()
        let groups = Compositor.displayedFrames(delays: delays)
        guard !groups.isEmpty else { throw ClipKitError.noFrames(path: url.path, reason: "the GIF has no images") }
        let total = groups.reduce(0) { $0 + effectiveDelay($1.map { delays[$0] }.reduce(0, +)) }
        let info = VideoInfo(container: "gif", codec: "gif", codedWidth: scan.canvasWidth, codedHeight: scan.canvasHeight,
                             rotation: .identity, duration: Double(total) / 100, frameRate: nil, pixelFormat: "pal8",
                             bitDepth: 8, frameCount: groups.count, hasAudio: false)
        return (info, delays, groups)
    }

    init(url: URL, options: FrameReadOptions) throws {
        self.url = url
        self.options = options
        (info, delays, groups) = try Self.info(of: url, maxPixels: options.maxPixels)
        if let duration = info.duration, options.start >= duration {
            throw ClipKitError.startPastEnd(path: url.path, start: options.start, duration: duration)
        }
    }

    var expectedCount: Int? {
        guard let duration = info.duration else { return nil }
        let span = min(options.end ?? duration, duration) - options.start
        if let fps = options.fps { return max(1, Int((span * fps - 1e-6).rounded(.up))) }
        return groups.count
    }

    func run(into sequence: FrameSequence) {
        do {
            try produce(into: sequence)
            sequence.queue.finish()
        } catch {
            sequence.queue.finish(throwing: error)
        }
    }

    private func produce(into sequence: FrameSequence) throws {
        let decoder = try GIFDecoder(url: url, maxPixels: options.maxPixels)
        var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
        var sampler = FrameSampler(start: options.start, end: options.end, interval: options.fps.map { 1 / $0 })
        let size = options.size.resolve(width: info.width, height: info.height)
        let scaler = Scaler()
        var emitted = 0
        var candidate: (image: RGBAImage, time: Double)?

        /// Queues `candidate` for every output place it fills; false once output should stop.
        func emit(nextTime: Double?, clipEnd: Double?) throws -> Bool {
            guard let (image, time) = candidate else { return true }
            let places = sampler.emissions(candidateTime: time, nextTime: nextTime, clipEnd: clipEnd)
            guard !places.isEmpty else { return true }
            let scaled = (size.width, size.height) == (image.width, image.height)
                ? image : try scaler.rgba(from: image, width: size.width, height: size.height)
            for place in places {
                if let maxFrames = options.maxFrames, emitted >= maxFrames { return false }
                let frame = VideoFrame(image: scaled, index: place.index, time: place.time, sourceTime: time)
                if !sequence.queue.push(frame) { return false }
                emitted += 1
            }
            return !(options.maxFrames.map { emitted >= $0 } ?? false)
        }

        var time = 0.0
        for group in groups {
            try options.deadline.check(url.path)
            if let maxDuration = options.maxDuration, min(time, options.end ?? .infinity) - options.start > maxDuration {
                throw ClipKitError.limitExceeded(path: url.path, what: String(format: "a frame at %.1fs", time),
                                                 limit: String(format: "%gs of clip", maxDuration), option: "--max-duration")
            }
            var delay = 0
            for _ in group {
                guard let image = try decoder.next() else { break }
                compositor.draw(image, decodedPixels: decoder.decodedPixelCount)
                delay += image.delay
            }
            if candidate != nil, !(try emit(nextTime: time, clipEnd: nil)) { break }
            candidate = (compositor.canvas, time)
            time += Double(Self.effectiveDelay(delay)) / 100
            if sampler.isExhausted(candidateTime: time) { break }
        }
        _ = try emit(nextTime: nil, clipEnd: time)
        guard emitted > 0 else { throw ClipKitError.noFrames(path: url.path, reason: "no frame in the requested range") }
        sequence.setDuration(max(min(options.end ?? time, time) - options.start, 0))
    }
}
