// Video (or images) to GIF as a pipeline: reader -> quantiser -> writer, joined by bounded queues.
import Foundation

/// Converts a clip to a looping GIF.
///
/// Three stages each on their own thread, joined by `BoundedQueue`s, so while frame *i* is
/// written, *i+1* is quantised and *i+2* decoded; memory is bounded by the queue capacities and
/// the frame size, never by the clip length:
///
///     VideoReader --SourceFrame--> quantise (diff, palette, dither) --QuantizedFrame--> write (delays, giflib)
public struct GIFConverter: Sendable {
    public var options: GIFOptions
    /// Called on the writing thread after each frame: (frames done, expected total if known).
    public var progress: (@Sendable (Int, Int?) -> Void)?

    public init(options: GIFOptions = GIFOptions(), progress: (@Sendable (Int, Int?) -> Void)? = nil) {
        self.options = options
        self.progress = progress
    }

    /// Converts the video at `url` into a GIF at `destination`.
    public func convert(video url: URL, to destination: URL) throws -> GIFResult {
        try options.validate()
        let deadline = options.limits.deadline()
        if options.palette == .global {
            let histogram = try gatherColors(video: url, deadline: deadline)
            let palette = Quantizer(maxColors: min(options.colors, 255)).palette(for: histogram)
            return try encode(openVideo(url, deadline: deadline), globalPalette: palette, transparentFrames: false, to: destination)
        }
        return try encode(openVideo(url, deadline: deadline), globalPalette: nil, transparentFrames: false, to: destination)
    }

    /// Assembles images (same size) shown for `delays` centiseconds each into a GIF.
    /// Frames with transparent pixels are written whole, each clearing the last (disposal
    /// background), so transparency survives; opaque frames get the inter-frame optimisation.
    public func convert(images: [URL], delays: [Int], to destination: URL) throws -> GIFResult {
        try options.validate()
        guard !images.isEmpty, images.count == delays.count else {
            throw ClipKitError.invalidOption(name: "inputs", reason: "give at least one image, each with a delay")
        }
        if let bad = delays.first(where: { $0 < 0 || $0 > 65535 }) {
            throw ClipKitError.invalidOption(name: "--delay", reason: "delays are 0 to 65535 centiseconds, got \(bad)")
        }
        // A first pass only looks for transparency; it reads each image once more but keeps none.
        var hasTransparency = false
        for url in images where !hasTransparency {
            let image = try PNGReader.read(url, maxPixels: options.maxPixels)
            hasTransparency = image.pixels.withUnsafeBufferPointer { p in
                stride(from: 3, to: p.count, by: 4).contains { p[$0] < 255 }
            }
        }
        var exact = options
        exact.changeThreshold = 0
        exact.mergeIdenticalFrames = false
        let converter = GIFConverter(options: exact, progress: progress)
        return try converter.encode(openImages(images, delays: delays), globalPalette: nil,
                                    transparentFrames: hasTransparency, to: destination)
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

    // MARK: - Sources

    /// A running source: frames in a bounded queue, the output duration once they are all read.
    struct Stream {
        var frames: BoundedQueue<SourceFrame>
        var duration: () -> Double?
        var expectedCount: Int?
    }

    private func readOptions(deadline: Deadline) -> FrameReadOptions {
        var read = FrameReadOptions(start: options.start, end: options.end, fps: options.fps / options.speed, size: options.size)
        read.maxPixels = options.maxPixels
        read.queueCapacity = 3
        read.deadline = deadline
        read.maxDuration = options.limits.maxDuration * options.speed
        return read
    }

    private func openVideo(_ url: URL, deadline: Deadline) throws -> Stream {
        let reader = try VideoReader(url: url, maxPixels: options.maxPixels)
        // Refuse before decoding when the stretch to convert is known to be too long.
        if let duration = reader.info.duration {
            try options.limits.checkDuration(min(options.end ?? duration, duration) - options.start, path: url.path)
        }
        let sequence = try reader.frames(options: readOptions(deadline: deadline))
        let speed = options.speed, limits = options.limits
        let frames = Stage.map(sequence.queue, name: "clipkit.gif.frames", capacity: 1) { frame in
            // Headers can lie about the duration: the timestamps are checked too.
            try limits.checkDuration(frame.time, path: url.path)
            return SourceFrame(image: frame.image, time: frame.time / speed)
        }
        return Stream(frames: frames, duration: { sequence.duration.map { $0 / speed } }, expectedCount: sequence.expectedCount)
    }

    private func openImages(_ urls: [URL], delays: [Int]) -> Stream {
        let maxPixels = options.maxPixels
        let frames = Stage.start(name: "clipkit.gif.images", capacity: 2) { (queue: BoundedQueue<SourceFrame>) in
            var centiseconds = 0
            var size: (Int, Int)?
            for (url, delay) in zip(urls, delays) {
                let image = try PNGReader.read(url, maxPixels: maxPixels)
                if let size, size != (image.width, image.height) {
                    throw ClipKitError.invalidOption(name: url.path, reason: "is \(image.width)x\(image.height), the first image is \(size.0)x\(size.1); frames must be the same size")
                }
                size = (image.width, image.height)
                if !queue.push(SourceFrame(image: image, time: Double(centiseconds) / 100)) { return }
                centiseconds += delay
            }
        }
        let total = delays.reduce(0, +)
        return Stream(frames: frames, duration: { Double(total) / 100 }, expectedCount: urls.count)
    }

    /// The colours of every frame, for `--palette global`: a decoding pass that keeps only a histogram.
    private func gatherColors(video url: URL, deadline: Deadline) throws -> ColorHistogram {
        let reader = try VideoReader(url: url, maxPixels: options.maxPixels)
        let sequence = try reader.frames(options: readOptions(deadline: deadline))
        defer { sequence.cancel() }
        var histogram = ColorHistogram()
        while let frame = try sequence.next() { histogram.add(frame.image) }
        return histogram
    }

    // MARK: - Quantise and write

    func encode(_ source: Stream, globalPalette: Palette?, transparentFrames: Bool, to destination: URL) throws -> GIFResult {
        let options = self.options
        var diff = FrameDiff(threshold: options.changeThreshold)
        let quantized = Stage.map(source.frames, name: "clipkit.gif.quantise", capacity: 2) { (source: SourceFrame) -> QuantizedFrame in
            if transparentFrames {
                return Self.quantizeWhole(source, options: options)
            }
            return Self.quantize(source, diff: &diff, globalPalette: globalPalette, options: options)
        }
        defer { quantized.cancel() }
        var writer = GIFWriterStage(destination: destination, options: options, globalPalette: globalPalette)
        var done = 0
        let deadline = options.limits.deadline()
        while let frame = try quantized.pop() {
            try deadline.check(destination.path)
            try options.limits.checkFrames(writer.framesWritten + 1, path: destination.path)
            try writer.add(frame)
            done += 1
            progress?(done, source.expectedCount)
        }
        return try writer.finish(duration: source.duration())
    }

    /// A frame after the first keeps only what visibly changed: the changed rectangle, with
    /// unchanged pixels as the transparent index (disposal none keeps the rest on screen).
    static func quantize(_ source: SourceFrame, diff: inout FrameDiff, globalPalette: Palette?, options: GIFOptions) -> QuantizedFrame {
        let image = source.image
        let change = diff.change(to: image)
        if !change.isFirst && change.rect.isEmpty {
            if options.mergeIdenticalFrames {
                return QuantizedFrame(frame: GIFFrame(width: 0, height: 0, indices: []), time: source.time, isUnchanged: true)
            }
            // Nothing to draw, but the frame must exist: one transparent pixel.
            let frame = GIFFrame(width: 1, height: 1, disposal: .none, transparentIndex: 0, localPalette: [0, 0, 0, 0, 0, 0], indices: [0])
            return QuantizedFrame(frame: frame, time: source.time, isUnchanged: false)
        }
        let mask: [Bool]? = change.isFirst ? nil : change.mask
        let palette = globalPalette ?? Quantizer(maxColors: change.isFirst ? options.colors : min(options.colors, 255))
            .palette(for: image, mask: mask)
        let transparent: UInt8? = change.isFirst ? nil : UInt8(palette.count)
        var ditherer = Ditherer(palette: palette, method: options.dither)
        let indices = ditherer.indices(for: image, rect: change.rect, mask: mask, transparentIndex: transparent)
        // With a global palette the table (and its transparent slot) is the file's global one.
        let table: [UInt8]? = globalPalette != nil ? nil : (transparent == nil ? palette.rgb : palette.rgb + [0, 0, 0])
        let frame = GIFFrame(left: change.rect.x, top: change.rect.y, width: change.rect.width, height: change.rect.height,
                             disposal: .none, transparentIndex: transparent.map(Int.init), localPalette: table, indices: indices)
        return QuantizedFrame(frame: frame, time: source.time, isUnchanged: false)
    }

    /// A frame with transparency, written whole: pixels under half alpha are transparent, and
    /// disposal background clears it before the next frame.
    static func quantizeWhole(_ source: SourceFrame, options: GIFOptions) -> QuantizedFrame {
        let image = source.image
        let count = image.width * image.height
        var mask = [Bool](repeating: true, count: count)
        var anyTransparent = false
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<count where p[i * 4 + 3] < 128 {
                mask[i] = false
                anyTransparent = true
            }
        }
        let palette = Quantizer(maxColors: anyTransparent ? min(options.colors, 255) : options.colors).palette(for: image, mask: mask)
        let transparent: UInt8? = anyTransparent ? UInt8(palette.count) : nil
        var ditherer = Ditherer(palette: palette, method: options.dither)
        let rect = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let indices = ditherer.indices(for: image, rect: rect, mask: anyTransparent ? mask : nil, transparentIndex: transparent)
        let frame = GIFFrame(width: image.width, height: image.height, disposal: .background,
                             transparentIndex: transparent.map(Int.init),
                             localPalette: transparent == nil ? palette.rgb : palette.rgb + [0, 0, 0], indices: indices)
        return QuantizedFrame(frame: frame, time: source.time, isUnchanged: false)
    }
}
