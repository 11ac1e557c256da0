// PNG frames (given files or an exploded manifest) as a frame producer for the GIF pipeline.
import Foundation

/// Reads PNG frames one at a time on the decode thread, scaled to the size the pass wants
/// (`FrameOutput.size`, never up); frame i is shown from the sum of the delays before it.
final class ImageSequenceSource: FrameProducer, Sendable {
    private let images: [URL]
    private let delays: [Int]
    private let limits: Limits
    /// Whether any frame has a pixel that is not fully opaque (then frames are written whole).
    let hasTransparency: Bool

    var expectedCount: Int? { images.count }

    /// Looks for transparency first: only images whose header allows alpha are decoded for it,
    /// each under the deadline, none kept.
    init(images: [URL], delays: [Int], limits: Limits) throws {
        self.images = images
        self.delays = delays
        self.limits = limits
        var transparent = false
        for url in images where !transparent {
            try limits.checkDeadline(url.path)
            guard try PNGReader.mayHaveAlpha(url) else { continue }
            let image = try PNGReader.read(url, maxPixels: limits.maxPixels)
            transparent = image.pixels.withUnsafeBufferPointer { p in
                stride(from: 3, to: p.count, by: 4).contains { p[$0] < 255 }
            }
        }
        hasTransparency = transparent
    }

    func run(into output: inout FrameOutput) throws {
        var centiseconds = 0
        var firstSize: (Int, Int)?
        let scaler = Scaler()
        for (index, (url, delay)) in zip(images, delays).enumerated() {
            try limits.checkDeadline(url.path)
            var image = try PNGReader.read(url, maxPixels: limits.maxPixels)
            if let firstSize, firstSize != (image.width, image.height) {
                throw ClipKitError.corrupt(path: url.path, reason: "is \(image.width)x\(image.height), the first image is \(firstSize.0)x\(firstSize.1); frames must be the same size")
            }
            firstSize = (image.width, image.height)
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
