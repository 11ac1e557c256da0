// Still frames (PNG or JPEG files, or an exploded manifest) as a frame producer for the GIF pipeline.
import Foundation

/// Reads still frames one at a time on the decode thread, scaled to the size the pass wants
/// (`FrameOutput.size`, never up); frame i is shown from the sum of the delays before it. PNGs
/// are read by libpng; JPEGs by FFmpeg, upright by their EXIF orientation (as `thumb` shows
/// them; a photo sequence's frames are often taken turned).
final class ImageSequenceSource: FrameProducer, Sendable {
    private let images: [URL]
    private let delays: [Int]
    private let limits: Limits
    /// The first image's size, from its header: every frame must have it.
    let size: (width: Int, height: Int)
    /// Whether any frame has a pixel that is not fully opaque, once looked for.
    private let transparency = LockedBox<Bool?>(nil)

    var expectedCount: Int? { images.count }

    /// The file extensions of JPEG frames, and of all still frames (lowercased).
    static let jpegExtensions: Set<String> = ["jpg", "jpeg"]
    static let extensions = jpegExtensions.union(["png"])

    /// Whether `url` names a JPEG frame (by its extension; its content decides whether it reads).
    static func isJPEG(_ url: URL) -> Bool {
        jpegExtensions.contains(url.pathExtension.lowercased())
    }

    /// Reads the first image's header only (its size within `--max-pixels`), so that the pass
    /// can check its memory before any picture is decoded.
    init(images: [URL], delays: [Int], limits: Limits) throws {
        self.images = images
        self.delays = delays
        self.limits = limits
        let (width, height) = try Self.size(of: images[0], limits: limits)
        try limits.checkPixels(width: width, height: height, what: "image size", path: images[0].path)
        size = (width, height)
    }

    /// An image's size from its header: upright, for a JPEG.
    private static func size(of url: URL, limits: Limits) throws -> (width: Int, height: Int) {
        guard isJPEG(url) else { return try PNGReader.size(of: url) }
        let info = try VideoReader(url: url, limits: limits, fullProbe: false).info
        return (info.width, info.height)
    }

    /// Whether any frame has a pixel that is not fully opaque (then frames go through `TransparentChain`).
    /// Looked for once, when the first pass has checked its memory: only images whose header
    /// allows alpha are decoded for it, one at a time, each under the deadline, none kept.
    func hasTransparency() throws -> Bool {
        if let known = transparency.withLock({ $0 }) { return known }
        var transparent = false
        for url in images where !transparent {
            try limits.checkDeadline(url.path)
            guard !Self.isJPEG(url), try PNGReader.mayHaveAlpha(url) else { continue }
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
        // A JPEG's reader gives its size and then its picture: the file is opened once.
        let reader = Self.isJPEG(url) ? try VideoReader(url: url, limits: limits, fullProbe: false) : nil
        let (width, height) = try reader.map { ($0.info.width, $0.info.height) } ?? PNGReader.size(of: url)
        if (width, height) != size {
            throw ClipKitError.corrupt(path: url.path, reason: "is \(width)x\(height), the first image is \(size.width)x\(size.height); frames must be the same size")
        }
        guard let reader else { return try PNGReader.read(url, maxPixels: limits.maxPixels) }
        var read = FrameReadOptions(size: .original)
        read.maxFrames = 1
        read.limits = limits
        let frames = try reader.frames(options: read)
        defer { frames.cancel() }
        guard let frame = try frames.next() else {
            throw ClipKitError.noFrames(path: url.path, reason: "no picture could be decoded")
        }
        guard (frame.image.width, frame.image.height) == size else {
            throw ClipKitError.corrupt(path: url.path, reason: "decodes to \(frame.image.width)x\(frame.image.height), the first image is \(size.width)x\(size.height); frames must be the same size")
        }
        return frame.image
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
