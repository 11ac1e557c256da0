// What one pass reads: a fit's decode taken over, recorded pictures replayed, or a producer
// opened (a video's decoder, which may record for the passes after it; a GIF's; PNG frames).
import Foundation

extension ConversionRun {
    /// The frames of one pass: the producer (none when recorded pictures are replayed), how many
    /// are expected, the queue depth, whether frames keep transparency, the clip's palette
    /// (`--palette global`), and the pictures (`FrameCache`) the producer records for the passes
    /// after this one, or that are replayed instead of a producer.
    struct Opened {
        var producer: (any FrameProducer)?
        var expectedCount: Int?
        var read: FrameReadOptions
        var transparentFrames: Bool
        var globalPalette: Palette?
        var pictures: DecodedFrames?
        /// The frames of a fit's decode that this pass took over (`FitDecode`): no decode stage of its own.
        var live: BoundedQueue<DecodedMessage>?
        /// The producer records for a fit: its stage runs on the fit's pipeline (`FitDecode`).
        var startsFit = false
    }

    func open(_ options: GIFOptions, pipeline: Pipeline, fit: FitDecode?) throws -> Opened {
        var read = readOptions(options)
        switch source {
        case .images(let images, let first):
            // Checked from the first header before any frame is decoded (transparency is looked for after).
            let size = images.size, output = options.size.resolve(width: size.width, height: size.height)
            var memory = passMemory(output: output, options: options)
            memory.frameCount = images.expectedCount
            memory.decoderPictures = 1
            // Each frame is decoded whole before it is scaled.
            if output != size { memory.sourceBytes = size.width * size.height * 4 }
            read.queueCapacity = try Self.queueCapacity(memory, deepest: 2, limits: options.limits, path: first.path)
            return Opened(producer: images, expectedCount: images.expectedCount, read: read, transparentFrames: try images.hasTransparency())
        case .video(let url):
            var palette: Palette?
            if outputs.gif != nil, options.palette == .global || sharesGIFPalette(url, options: options) {
                let histogram = try gatherColors(video: url, options: options)
                palette = Quantizer(maxColors: options.colorsBesideTransparent, errorTarget: Double(options.paletteError))
                    .palette(for: histogram)
            }
            if let fit, let started = fit.live {
                // The fit's decode, while it goes on: its frames from the first, at this pass's size.
                (read.queueCapacity, _) = try recordingQueueCapacity(info: started.info, options: options, path: url.path,
                                                                     stages: outputs.gif != nil)
                if let live = fit.attach(read, capacity: read.queueCapacity, pipeline: pipeline) {
                    return Opened(expectedCount: started.expectedCount, read: read, transparentFrames: started.transparentFrames,
                                  globalPalette: palette, live: live)
                }
            }
            if let frames = frameCache?.take(for: read), let source = frames.source {
                // The pictures a pass before decoded, scaled again: no demuxer, no decoder.
                read.queueCapacity = try queueCapacity(info: source.info, options: options, path: url.path, stages: outputs.gif != nil,
                                                       held: frameCache?.budget ?? 0)
                return Opened(expectedCount: DecodedFramesReplay.expectedCount(source, options: read), read: read,
                              transparentFrames: source.info.hasAlpha, globalPalette: palette, pictures: frames)
            }
            let reader = try VideoReader(url: url, limits: options.limits, fullProbe: true, defaultOptions: nil)
            // Refuse before decoding when the stretch to convert is known to be too long.
            if let duration = reader.info.duration {
                try options.limits.checkSourceSpan(min(options.end ?? duration, duration) - options.start, path: url.path)
            }
            let records: Bool
            (read.queueCapacity, records) = try recordingQueueCapacity(info: reader.info, options: options, path: url.path,
                                                                       stages: outputs.gif != nil)
            let producer = try reader.makeProducer(options: read)
            let expected = producer.expectedCount
            // Only a video decoder records (a GIF source decodes every pass, as before).
            let recording = records && producer is FrameDecoder
                ? frameCache?.recording(pictures: expected, of: reader.info.decodedPictureBytes) : nil
            // A fit's recording decode outlives this pass, for the passes after it (`FitDecode`).
            let startsFit = recording != nil && fit != nil && fit?.current == nil
            if startsFit {
                fit?.start(.init(info: reader.info, key: FrameCache.Key(read), expectedCount: expected, transparentFrames: reader.info.hasAlpha))
            }
            // Transparency is kept: such frames are written whole, each clearing the last.
            return Opened(producer: producer, expectedCount: expected, read: read, transparentFrames: reader.info.hasAlpha,
                          globalPalette: palette, pictures: recording, startsFit: startsFit)
        }
    }

    /// Whether `--palette auto` gives a GIF input one palette (as `--palette global` does): a
    /// GIF whose images all read their indices against one colour table (the global one, or
    /// local tables that repeat it or each other), converted at its own size, not under
    /// `--max-bytes` (whose narrower passes would not share it). Its frames hold the table's
    /// colours, so one table serves them all, as in the source: a 2 s 50 fps ffmpeg GIF (226 KB)
    /// re-encoded took 295 KB with a table a frame (70 KB of them), 226 KB with one. The colours
    /// are gathered by decoding the GIF once more (its images, not a video's pictures).
    private func sharesGIFPalette(_ url: URL, options: GIFOptions) -> Bool {
        guard sourceIsGIF, options.palette == .auto, options.maxBytes == nil,
              let decoder = try? GIFDecoder(url: url, maxPixels: options.limits.maxPixels),
              let scan = try? decoder.scan(deadline: options.limits.deadline), scan.ownPaletteCount == 0 else { return false }
        let size = (width: decoder.canvasWidth, height: decoder.canvasHeight)
        return options.size.resolve(width: size.width, height: size.height) == size
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
