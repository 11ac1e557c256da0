// What a lossy LZW encoding may trade, and what it knows of the picture under the image.

/// What a lossy encoding may trade: the colours behind the indices and how far a pixel may stray.
///
/// At each string start the encoder searches the strings of its table that begin with the
/// exact wanted pixel for the best one to write: the longest, less the colour error it costs
/// (each pixel's error against its wanted colour plus the carried error, in units of `bound`,
/// weighs `LZWEncoder.lossWeight` pixels of length). A pixel may take another index than the
/// wanted one when the two colours are close: within `bound` (squared RGB distance, weighted
/// 3:4:2 by `LZWEncoder.distance`) of the wanted colour plus the carried error, and within
/// `2 * bound` of the wanted colour alone, which bounds every pixel's error. The error of each
/// pixel (the colour written against the wanted one, with the error it inherited) is diffused
/// as Floyd-Steinberg diffuses it (`LossyDiffusion`): seven sixteenths to the next pixel, the
/// rest to the row below, where the next strings aim to even it out, so a run of near misses
/// cannot drift one way. (gifsicle's `--lossy` searches its table the same way.
/// Against the greedy choice this replaced, the closest colour that extends the string one
/// pixel at a time, it wrote 6-22% fewer bytes at equal SSIMULACRA2.) Both bounds, and what an
/// error costs in the score, are scaled pixel by pixel by the contrast around the pixel
/// (`ErrorAllowance`): half the bound on flat areas, where a stray colour is a speck anyone
/// sees, up to three times it among edges and texture, which hide it.
///
/// With `bound` 0 and a canvas the encoding is exact in what the viewer sees: a transparent
/// pixel may become the colour that shows through it, and a pixel may become transparent where
/// that colour shows, whichever makes the longer string.
struct LZWLossy {
    /// RGB triples of the colour table in effect (at least as many entries as the indices use).
    var palette: UnsafeBufferPointer<UInt8>
    /// Largest (weighted) squared RGB distance accepted (with the carried error); 0 changes no colour.
    var bound: Int
    var transparentIndex: Int?
    /// What the viewer sees under the image before it is drawn, RGB per screen pixel, updated to
    /// what this image shows; nil when unknown (then transparent only ever stands for itself).
    /// With it, a transparent pixel may become a colour close to what it shows, and a pixel may
    /// become transparent where what shows through is close to its colour.
    var canvas: UnsafeMutablePointer<UInt8>?
    var canvasWidth = 0
    /// Where the image sits on the canvas, and its width.
    var left = 0
    var top = 0
    var imageWidth = 1
    /// Where to record the index each pixel was written as (one per index), for a caller that
    /// follows what the viewer sees; nil records nothing.
    var shown: UnsafeMutablePointer<UInt8>?
    /// Told, with a canvas, how many of the image's rows are written, each time `progressRows`
    /// more are: what the viewer sees on those rows is final (nothing after can draw there), so
    /// a caller can pass them on while the rest is encoded. The last rows are not reported.
    var progress: ((Int) -> Void)?
    var progressRows = 1

    /// The squared-distance bound for `--lossy N`.
    static func bound(forLevel level: Int) -> Int { level * 10 }
}
