// PNG frames (given files or an exploded manifest) as a frame producer for the GIF pipeline.
import Foundation

/// Reads PNG frames one at a time on the decode thread, scaled to the size the pass wants
/// (`FrameOutput.size`, never up); frame i is shown from the sum of the delays before it.
final class ImageSequenceSource: FrameProducer, Sendable {
    private let images: [URL]
    private let delays: [Int]
    private let limits: Limits
    /// The first image's size, from its header: every frame must have it.
    let size: (width: Int, height: Int)
    /// Whether any frame has a pixel that is not fully opaque, once looked for.
    private let transparency = LockedBox<Bool?>(nil)

    var expectedCount: Int? { images.count }

    /// Reads the first image's header only (its size within `--max-pixels`), so that the pass
    /// can check its memory before any picture is decoded.
    init(images: [URL], delays: [Int], limits: Limits) throws {
        self.images = images
        self.delays = delays
        self.limits = limits
        let (width, height) = try PNGReader.size(of: images[0])
        try limits.checkPixels(width: width, height: height, what: "image size", path: images[0].path)
        size = (width, height)
    }

    /// Whether any frame has a pixel that is not fully opaque (then frames are written whole).
    /// Looked for once, when the first pass has checked its memory: only images whose header
    /// allows alpha are decoded for it, one at a time, each under the deadline, none kept.
    func hasTransparency() throws -> Bool {
        if let known = transparency.withLock({ $0 }) { return known }
        var transparent = false
        for url in images where !transparent {
            try limits.checkDeadline(url.path)
            guard try PNGReader.mayHaveAlpha(url) else { continue }
            let image = try read(url)
            transparent = image.pixels.withUnsafeBufferPointer { p in
                stride(from: 3, to: p.count, by: 4).contains { p[$0] < 255 }
            }
        }
        transparency.store(transparent)
        return transparent
    }

    /// Decodes `url`, refused from its header when it is not the first image's size: the memory
    /// checked for the pass is for pictures of that size.
    private func read(_ url: URL) throws -> RGBAImage {
        let (width, height) = try PNGReader.size(of: url)
        if (width, height) != size {
            throw ClipKitError.corrupt(path: url.path, reason: "is \(width)x\(height), the first image is \(size.width)x\(size.height); frames must be the same size")
        }
        return try PNGReader.read(url, maxPixels: limits.maxPixels)
    }

    func run(into output: inout FrameOutput) throws {
        var centiseconds = 0
        let scaler = Scaler()
        for (index, (url, delay)) in zip(images, delays).enumerated() {
            try limits.checkDeadline(url.path)
            var image = try read(url)
            let wanted = output.size.resolve(width: image.width, height: image.height)
            if wanted != (image.width, image.height) {
                image = try scaler.rgba(from: image, width: wanted.width, height: wanted.height)
            }
            let place = FrameSampler.Emission(index: index, time: Double(centiseconds) / 100)
            if !output.push(image, at: [place], sourceTime: place.time) { return }
            centiseconds += delay
        }
        output.end(duration: Double(centiseconds) / 100)
    }
}
