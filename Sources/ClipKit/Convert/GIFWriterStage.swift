// The last GIF stage: gives each frame its delay by cumulative rounding, merges repeats, writes the file.
import Foundation

/// Holds back up to two frames: a frame's delay is known only when the next changed frame (or
/// the end message) arrives, and a last frame that would be shown for under 2 cs is folded into
/// the one before (browsers play 0 and 1 cs delays as 10 cs).
struct GIFWriterStage {
    let destination: URL
    /// The input, which limit errors name.
    let source: String
    let options: GIFOptions
    let globalPalette: Palette?
    let budget: ByteBudget
    private var encoder: GIFEncoder?
    private var globalTable: [UInt8]?
    /// Images encoded (so what they show is known) but waiting for their delay, with their times.
    private var pending: [(image: GIFEncoder.PreparedImage, time: Double)] = []
    private var size = (width: 0, height: 0)
    private var writtenCentiseconds = 0
    /// Where what the viewer sees goes to be scored against the source (`options.measure`);
    /// nil when not measured.
    var meter: GIFMeterStage?
    /// Where what the viewer sees goes back to the quantiser, band by band as each image is
    /// written (see `ShownFollower`, the quantiser's side); nil when nobody asks.
    var shownFeedback: BoundedQueue<ShownReport>?

    init(destination: URL, source: String, options: GIFOptions, globalPalette: Palette?, budget: ByteBudget) {
        self.destination = destination
        self.source = source
        self.options = options
        self.globalPalette = globalPalette
        self.budget = budget
    }

    /// Bytes written so far.
    var bytesWritten: Int { encoder?.bytesWritten ?? 0 }

    /// Bytes written so far and held back in encoded images waiting for their delays.
    var bytesSoFar: Int { bytesWritten + pending.reduce(0) { $0 + $1.image.bytes.count } }

    /// The lossy LZW level of the images encoded from now on (`options.lossy` at first;
    /// `LossyRateControl` raises it on a `--max-bytes` pass's later frames).
    var lossy: Int {
        get { encoder?.lossy ?? options.lossy }
        set { encoder?.lossy = newValue }
    }

    /// The GIF's size (0 x 0 before the first frame).
    var canvasSize: (width: Int, height: Int) { size }

    /// Images written or waiting to be.
    var framesWritten: Int { (encoder?.frameCount ?? 0) + pending.count }

    /// Takes the next quantised frame. Its image is encoded at once (its delay is written with
    /// it later), so what the viewer sees during its tick is known now and can be measured.
    mutating func add(_ quantized: QuantizedFrame) throws {
        // An unchanged frame: the previous image simply stays on screen longer.
        if !quantized.isUnchanged {
            try options.limits.checkFrames(framesWritten + 1, path: source)
            if encoder == nil { try start(with: quantized) }
            guard let encoder else { return }
            var frame = quantized.frame
            if frame.localPalette == nil || frame.localPalette == globalTable { frame.localPalette = nil }
            let image = try prepare(frame, with: encoder)
            meter?.send(.draw(left: frame.left, top: frame.top, width: frame.width, height: frame.height, disposal: frame.disposal,
                              transparentIndex: frame.transparentIndex, table: image.table, shown: image.shown))
            if pending.count == 2 {
                let first = pending.removeFirst()
                try write(first.image, delay: Delays.centiseconds(pending[0].time) - Delays.centiseconds(first.time))
            }
            pending.append((GIFEncoder.PreparedImage(bytes: image.bytes, disposal: image.disposal, transparentIndex: image.transparentIndex,
                                                     table: [], shown: []), quantized.time))
        }
        if let luma = quantized.sourceLuma { meter?.send(.tick(luma: luma, source: quantized.sourceImage, time: quantized.time)) }
    }

    /// The stream ended `duration` seconds after the first frame: writes what is held back and
    /// `fingerprint` (as a comment) and the trailer. The GIF is still a temp file until `handOver()`.
    mutating func finish(duration: Double, fingerprint: Fingerprint? = nil) throws -> GIFResult {
        guard let encoder, let last = pending.last else {
            throw ClipKitError.noFrames(path: source, reason: "no frames to write")
        }
        let end = Delays.centiseconds(max(duration, last.time))
        let lastDelay = end - Delays.centiseconds(last.time)
        if pending.count == 2 {
            let first = pending[0]
            if lastDelay < 2 {
                try write(first.image, delay: end - Delays.centiseconds(first.time))
            } else {
                try write(first.image, delay: Delays.centiseconds(last.time) - Delays.centiseconds(first.time))
                try write(last.image, delay: lastDelay)
            }
        } else {
            try write(last.image, delay: max(lastDelay, 2))
        }
        pending.removeAll()
        if let fingerprint { try encoder.addComment(fingerprint.gifComment) }
        try encoder.writeTrailer()
        var result = GIFResult(url: destination, width: size.width, height: size.height, frameCount: encoder.frameCount,
                               durationCentiseconds: writtenCentiseconds, bytes: encoder.bytesWritten)
        result.settings = GIFSettings(options)
        if let figures = try meter?.finish(path: source) {
            result.ssim = figures.ssim
            result.ssimulacra2 = figures.ssimulacra2
            result.ssimulacra2P5 = figures.ssimulacra2P5
        }
        result.durationErrorMilliseconds = writtenCentiseconds * 10 - Int((duration * 1000).rounded())
        return result
    }

    /// The finished GIF, still under its temp name, to be committed with the input's other outputs.
    func handOver() throws -> FinishedFile {
        guard let encoder else { throw ClipKitError.noFrames(path: source, reason: "no frames to write") }
        return try encoder.handOver()
    }

    /// Encodes `frame`, reporting what the viewer sees to `shownFeedback` as its rows are
    /// written (never waiting: the queue holds an image's reports).
    private func prepare(_ frame: GIFFrame, with encoder: GIFEncoder) throws -> GIFEncoder.PreparedImage {
        guard let shownFeedback else { return try encoder.prepare(frame, recordShown: meter != nil) }
        let screenWidth = size.width
        // Rows of the image reported so far.
        var reported = 0
        func report(upTo rows: Int, from canvas: UnsafeBufferPointer<UInt8>) {
            guard rows > reported else { return }
            let band = PixelRect(x: frame.left, y: frame.top + reported, width: frame.width, height: rows - reported)
            var pixels = [UInt8]()
            pixels.reserveCapacity(band.width * band.height * 3)
            for y in band.y..<band.y + band.height {
                let from = (y * screenWidth + band.x) * 3
                pixels += canvas[from..<from + band.width * 3]
            }
            _ = shownFeedback.push(.rows(band, pixels))
            reported = rows
        }
        let image = try encoder.prepare(frame, recordShown: meter != nil, rowsPerReport: ShownReport.bandRows(height: frame.height)) {
            report(upTo: $0, from: $1)
        }
        if let canvas = encoder.shownCanvas {
            canvas.withUnsafeBufferPointer { report(upTo: frame.height, from: $0) }
            _ = shownFeedback.push(.done)
        } else {
            _ = shownFeedback.push(.unknown)
        }
        return image
    }

    private mutating func start(with first: QuantizedFrame) throws {
        size = (first.frame.width, first.frame.height)
        // The first frame's colours become the global table; later frames repeat it only by reference.
        let table = globalPalette.map { $0.rgb + [0, 0, 0] } ?? first.frame.localPalette ?? [0, 0, 0]
        globalTable = table
        encoder = try GIFEncoder(url: destination, width: size.width, height: size.height,
                                 globalPalette: Palette(rgb: table), loopCount: options.loopCount, budget: budget)
        encoder?.lossy = options.lossy
        meter?.send(.begin(width: size.width, height: size.height))
    }

    private mutating func write(_ image: GIFEncoder.PreparedImage, delay: Int) throws {
        let first = min(delay, TimingBounds.imageDelay.upperBound)
        try encoder?.write(image, delay: first)
        // A longer stillness (a gap in the source over 655.35 s) continues in images that draw
        // nothing, so the GIF keeps the source's timing instead of cutting it short.
        var rest = delay - first
        while rest > 0 {
            let hold = GIFFrame(width: 1, height: 1, delay: min(rest, TimingBounds.imageDelay.upperBound), disposal: .none, transparentIndex: 0,
                                localPalette: [0, 0, 0, 0, 0, 0], indices: [0])
            try options.limits.checkFrames((encoder?.frameCount ?? 0) + 1, path: source)
            try encoder?.add(hold)
            rest -= hold.delay
        }
        writtenCentiseconds += delay
    }
}
