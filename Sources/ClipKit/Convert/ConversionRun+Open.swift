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
            let sharing = outputs.gif == nil ? nil : options.palette == .global ? .always : gifPaletteSharing(url, options: options)
            if let sharing, let histogram = try sharedColors(url, sharing: sharing, options: options) {
                palette = Quantizer(maxColors: options.colorsBesideTransparent, errorTarget: Double(options.paletteError))
                    .palette(for: histogram) { histogram.countedBins() }
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
            // Transparency is kept: such frames go through `TransparentChain`.
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
    ///
    /// A GIF whose images read their indices against tables of their own shares one palette when
    /// its frames, all together, show no more colours than one palette holds beside the
    /// transparent index (`whenColorsFit`): ffmpeg's paletteuse gives the first image one table
    /// and the others another (a 200x150 GIF of 30 frames showing 247 colours in all took 120 KB
    /// with a table a frame, 99 KB with one). The gathering stops once there are more.
    private func gifPaletteSharing(_ url: URL, options: GIFOptions) -> PaletteSharing? {
        guard sourceIsGIF, options.palette == .auto, options.maxBytes == nil,
              let decoder = try? GIFDecoder(url: url, maxPixels: options.limits.maxPixels),
              let scan = try? decoder.scan(deadline: options.limits.deadline) else { return nil }
        let size = (width: decoder.canvasWidth, height: decoder.canvasHeight)
        guard options.size.resolve(width: size.width, height: size.height) == size else { return nil }
        return scan.ownPaletteCount == 0 ? .always : .whenColorsFit(meanEntries: Double(scan.tableBytes) / 3 / Double(max(scan.imageCount, 1)))
    }

    /// Whether a GIF's frames get one palette, gathered from them all.
    enum PaletteSharing {
        case always
        /// When they show at most `GIFOptions.colorsBesideTransparent` colours, in a table (the
        /// transparent index beside them) of at most twice the entries of the tables the
        /// source's images read against, on average (`GIFScan.tableBytes`): a bit more a code at
        /// most. Past that the wider codes of images of few colours cost more than the tables
        /// saved: small GIFs of 2-32 entry tables grew by up to 362 bytes with one table for all
        /// (a 32x32 GIF of 30 two-colour frames, 30 colours in all: 1,849 -> 2,005 B).
        case whenColorsFit(meanEntries: Double)
    }

    /// The colours of every frame, for one palette; nil when `sharing` wants them to fit one
    /// table and they do not (too many, or a table that costs more than the images' own): a
    /// palette a frame then, as for any other source.
    private func sharedColors(_ url: URL, sharing: PaletteSharing, options: GIFOptions) throws -> ColorHistogram? {
        guard case .whenColorsFit(let meanEntries) = sharing else { return try gatherColors(video: url, options: options) }
        let limit = options.colorsBesideTransparent
        // The gathering stops as soon as the colours pass what one table may take, or what pays.
        let histogram = try gatherColors(video: url, options: options, stoppingPast: min(limit, Int(2 * meanEntries) - 1))
        return Self.oneTablePays(histogram.distinctCount, limit: limit, meanEntries: meanEntries) ? histogram : nil
    }

    /// Which pixels of `image` are drawn opaque (alpha 128 or more).
    static func shownPixels(_ image: RGBAImage) -> [Bool] {
        image.pixels.withUnsafeBufferPointer { p in (0..<image.width * image.height).map { p[$0 * 4 + 3] >= 128 } }
    }

    /// Whether `colors` distinct colours (nil: more than 256) fit `limit`, in a table (padded to
    /// a power of two, the transparent index beside them) of at most twice `meanEntries`.
    static func oneTablePays(_ colors: Int?, limit: Int, meanEntries: Double) -> Bool {
        guard let colors, colors <= limit else { return false }
        var entries = 2
        while entries < colors + 1 { entries *= 2 }
        return Double(entries) <= 2 * meanEntries
    }

    /// The colours of every frame, for `--palette global`: a decoding pass that keeps only a
    /// histogram; it stops once more than `stoppingPast` distinct colours are seen (when given).
    private func gatherColors(video url: URL, options: GIFOptions, stoppingPast limit: Int? = nil) throws -> ColorHistogram {
        let frames = try VideoReader(url: url, limits: options.limits, fullProbe: false).frames(options: readOptions(options))
        defer { frames.cancel() }
        var histogram = ColorHistogram(countingColorsUpTo: Quantizer.countedLimit)
        while let frame = try frames.next() {
            // The colours shown: a transparent pixel (alpha under 128, as the quantiser takes it) takes the free entry.
            histogram.add(frame.image, mask: frame.image.isOpaque ? nil : Self.shownPixels(frame.image))
            if let limit, (histogram.distinctCount ?? .max) > limit { break }
        }
        return histogram
    }
}
