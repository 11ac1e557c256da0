// What one GIF pass holds in memory: the one rule by which `--max-memory` sets its queues' depth or refuses it, for every source.

/// The memory of one pass (decode -> quantise -> write, measured or not) over frames of `output`
/// pixels: the pictures in flight between the stages, which the queues' depth sets, and what the
/// stages hold per pixel whatever the depth. Video, GIF and PNG sources are checked by it alike
/// (`ConversionRun.queueCapacity`): the deepest queues that fit, else queues of one, else refused
/// before anything is decoded.
///
/// The figures are peak RSS (`/usr/bin/time -f %M`) less the 21 MB the binary takes for a 64x64
/// picture, in bytes per output pixel. One PNG frame (the slope between 4000x4000 and 8000x8000):
/// exact 8.6, of which 4 are the picture; `--lossy 80` 12.0; `--measure` 9.3 and the meter's
/// planes (`GIFQualityMeter.memory`); `--lossy 80 --measure` 16.2 and the planes. Frames in flight
/// are the most where decoding outpaces quantising, so a 3 s 4000x4000 H.264 clip at 10 fps sets
/// the depth's share; queues of 1: exact 36.5 to 39.6 (runs differ), `--lossy 80` 43.4,
/// `--measure` 57, `--lossy 80 --measure` 59 (and the planes); queues of 3: exact 45,
/// `--quality 50` 64. (Six 4000x4000 PNG
/// frames, whose decoding is slower than quantising, keep their queues near empty: exact 28,
/// `--quality 50` 38.)
struct GIFPassMemory: Sendable {
    /// The frames' size as the quantiser gets them.
    var output: (width: Int, height: Int)
    /// Bytes held on the source's side whatever the depth: a GIF's canvas and the copy a shown
    /// frame keeps; a PNG decoded at its own size before it is scaled; pictures kept for other
    /// passes (`FrameCache`).
    var sourceBytes = 0
    /// Pictures the decoder holds beside those it has queued: a video's converted (and turned)
    /// frames and, about two pictures' worth, its reference frames and those its threads decode
    /// (YUV); the PNG being decoded.
    var decoderPictures = 4
    /// The frames the source has, when known before decoding (PNG frames): there are never more
    /// pictures in flight than frames, and one frame is one picture from decoder to writer (the
    /// queues, the quantiser's frame and its reference all share it).
    var frameCount: Int?
    /// Lossy LZW on some pass at this size: the shown canvas the writer keeps and hands back.
    var lossy = false
    var measured = false
    /// The GIF's stages: a decode for WebP/MP4 only has no quantiser, writer or meter.
    var stages = true

    /// The quantiser's change mask and indices, the indices queued for the writer, the image as
    /// encoded before it is written.
    static let stageBytesPerPixel = 5
    /// The writer's shown canvas (RGB), the lossy encoder's error allowances (a byte a pixel),
    /// the bands of it handed back to the quantiser and the quantiser's copy (RGB).
    static let lossyBytesPerPixel = 7
    /// The source's luma beside each quantised frame, the meter's screen (luma and RGBA), the
    /// indices as written.
    static let measuredBytesPerPixel = 6

    /// Frames decoded, queued and held at once with queues of `capacity`: the decoder's, the
    /// decode queue, the tee's and the quantiser's queues, the quantiser's frame and its
    /// reference; measured, the sources riding with the quantised frames and in the meter's
    /// queue, and those the writer and the meter have in hand.
    func pictures(capacity: Int) -> Int {
        let hop = min(capacity, 2)
        let queued = decoderPictures + capacity + 2 * hop + 2 + (measured ? 2 * hop + 2 : 0)
        guard let frameCount else { return queued }
        // Each frame a picture of its own, and the reference a copy once a second frame comes.
        return frameCount <= 1 ? 1 : min(queued, frameCount + 2)
    }

    /// The stages' bytes whatever the depth: per pixel, and the meter's SSIMULACRA2 planes.
    var stageBytes: Int {
        guard stages else { return 0 }
        let perPixel = Self.stageBytesPerPixel + (lossy ? Self.lossyBytesPerPixel : 0) + (measured ? Self.measuredBytesPerPixel : 0)
        let meter = measured ? GIFQualityMeter.memory(width: output.width, height: output.height) : 0
        return Self.product(output.width, output.height, perPixel) &+ meter
    }

    /// All of it with queues of `capacity` (`Int.max` past what an `Int` holds).
    func bytes(capacity: Int) -> Int {
        let frames = Self.product(output.width, output.height, 4, pictures(capacity: capacity))
        let (sum, overflow) = frames.addingReportingOverflow(stageBytes)
        let (total, overflow2) = sum.addingReportingOverflow(sourceBytes)
        return overflow || overflow2 ? .max : total
    }

    /// What the refusal says it is for, with queues of `capacity`.
    func description(capacity: Int) -> String {
        let count = pictures(capacity: capacity)
        var parts = ["\(count) \(count == 1 ? "frame" : "frames") of \(output.width)x\(output.height) in flight"]
        if stages { parts.append("the GIF stages' buffers" + (measured ? " and the quality meter" : "")) }
        if sourceBytes > 0 { parts.append("the source's pictures") }
        return parts.joined(separator: ", ")
    }

    private static func product(_ factors: Int...) -> Int {
        var result = 1
        for factor in factors {
            let (next, overflow) = result.multipliedReportingOverflow(by: max(factor, 0))
            if overflow { return .max / 4 }
            result = next
        }
        return result
    }
}
