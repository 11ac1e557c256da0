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
        options.expectedCount(duration: info.duration, frameRate: nil, sourceFrames: groups.count)
    }

    func run(into sequence: FrameSequence) {
        sequence.produce { try produce(into: sequence) }
    }

    private func produce(into sequence: FrameSequence) throws {
        let decoder = try GIFDecoder(url: url, maxPixels: options.maxPixels)
        var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
        var sampler = FrameSampler(start: options.start, end: options.end, interval: options.fps.map { 1 / $0 })
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
            return sequence.push(scaled, at: places, sourceTime: time, maxFrames: options.maxFrames)
        }

        var time = 0.0
        for group in groups {
            try options.deadline.check(url.path)
            try options.checkTimestamp(time, path: url.path)
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
        guard sequence.pushedCount > 0 else { throw ClipKitError.noFrames(path: url.path, reason: "no frame in the requested range") }
        sequence.setDuration(max(min(options.end ?? time, time) - options.start, 0))
    }
}
