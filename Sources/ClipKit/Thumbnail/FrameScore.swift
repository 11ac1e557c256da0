// How a frame scored as a poster: its parts (sharpness, detail, colour, stability) and the whole.

/// How one frame scored as a poster (`PosterPicker`). Every part is 0...1, higher is better,
/// measured on the frame scaled to about 160 px wide:
/// - `sharpness`: the deviation d of the luma Laplacian as d / (d + 12): edges and texture
///   give 0.7-0.9, a blurred or flat picture under 0.3.
/// - `detail`: the entropy of the luma histogram over its 8-bit maximum: a wide spread of
///   tones gives 0.6-0.95, a title card (a flat colour with a little text) under 0.2, a dim
///   fading frame less than the frame it fades to.
/// - `colourfulness`: Hasler and Suesstrunk's measure c as c / (c + 30): grey is 0.
/// - `stability`: how alike the frame is to its neighbouring samples less than a second away,
///   1 / (1 + (difference / 0.15)^2) for the larger difference of the two sides: a frame
///   inside a steady shot scores near 1, one next to a cut or inside a flash, a quick fade or a
///   whip pan low. 1 when no sample is that close (keyframes a few seconds apart).
///
/// `score` is sharpness x detail x (0.75 + 0.25 colourfulness) x stability, or 0 for a blank
/// frame (almost uniformly black, white or one flat colour): any weak part pulls the whole
/// down, colour counts least (black-and-white footage still has a best frame).
public struct FrameScore: Sendable, Equatable {
    /// Presentation time of the frame, in seconds from the stream start:
    /// `ThumbnailPosition.seconds(time)` (`clipkit thumb --at`) gives this frame.
    public var time: Double
    /// The whole: the product of the parts, 0 for a blank frame.
    public var score: Double
    /// Edges and texture (the luma Laplacian's spread).
    public var sharpness: Double
    /// Spread of tones (the luma histogram's entropy).
    public var detail: Double
    /// Colour (Hasler and Suesstrunk's measure).
    public var colourfulness: Double
    /// Likeness to the neighbouring samples (1 with none near).
    public var stability: Double
    /// Almost uniformly black, white or one flat colour.
    public var isBlank: Bool

    public init(time: Double, score: Double, sharpness: Double, detail: Double, colourfulness: Double,
                stability: Double, isBlank: Bool) {
        self.time = time
        self.score = score
        self.sharpness = sharpness
        self.detail = detail
        self.colourfulness = colourfulness
        self.stability = stability
        self.isBlank = isBlank
    }

    /// Laplacian deviation that scores 0.5 sharpness.
    static let sharpnessHalf = 12.0
    /// Colourfulness that scores 0.5.
    static let colourHalf = 30.0
    /// Difference from a neighbour that scores 0.5 stability.
    static let stabilityHalf = 0.15

    init(_ features: FrameFeatures, neighbourDifference: Double?) {
        let d = features.laplacianDeviation, c = features.colourfulness
        let sharpness = d / (d + Self.sharpnessHalf)
        let detail = min(max(features.entropy / 8, 0), 1)
        let colourfulness = c / (c + Self.colourHalf)
        let stability = neighbourDifference.map { 1 / (1 + ($0 / Self.stabilityHalf) * ($0 / Self.stabilityHalf)) } ?? 1
        let score = features.isBlank ? 0 : sharpness * detail * (0.75 + 0.25 * colourfulness) * stability
        self.init(time: features.time, score: score, sharpness: sharpness, detail: detail, colourfulness: colourfulness,
                  stability: stability, isBlank: features.isBlank)
    }

    /// Scores frames in time order, each against its neighbours closer than `reach` seconds.
    static func scoring(_ frames: [FrameFeatures], reach: Double) -> [FrameScore] {
        frames.indices.map { i in
            var largest: Double?
            for j in [i - 1, i + 1] where frames.indices.contains(j) && abs(frames[j].time - frames[i].time) < reach {
                largest = max(largest ?? 0, frames[i].difference(from: frames[j]))
            }
            return FrameScore(frames[i], neighbourDifference: largest)
        }
    }

    /// Best first: higher score, then the earlier frame (so ties always break the same way).
    static func isBetter(_ a: FrameScore, than b: FrameScore) -> Bool {
        a.score != b.score ? a.score > b.score : a.time < b.time
    }
}
