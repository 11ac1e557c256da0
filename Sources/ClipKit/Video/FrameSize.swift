// The requested output size of frames: original, a bounding box, or one side with aspect kept.

/// How big the frames a reader produces should be. Sizes apply to the upright picture.
public enum FrameSize: Sendable, Equatable {
    /// The stored size.
    case original
    /// Fit inside `width` x `height`, keeping aspect; never upscale.
    case fit(width: Int, height: Int)
    /// This width, height from the aspect ratio; never upscale.
    case width(Int)
    /// This height, width from the aspect ratio; never upscale.
    case height(Int)
    /// Exactly this size (aspect not kept).
    case exact(width: Int, height: Int)

    /// The output size for an upright picture of `width` x `height`.
    public func resolve(width: Int, height: Int) -> (width: Int, height: Int) {
        func scaled(_ factor: Double) -> (Int, Int) {
            if factor >= 1 { return (width, height) }
            return (max(1, Int((Double(width) * factor).rounded())), max(1, Int((Double(height) * factor).rounded())))
        }
        switch self {
        case .original:
            return (width, height)
        case .fit(let w, let h):
            return scaled(min(Double(w) / Double(width), Double(h) / Double(height)))
        case .width(let w):
            return scaled(Double(w) / Double(width))
        case .height(let h):
            return scaled(Double(h) / Double(height))
        case .exact(let w, let h):
            return (w, h)
        }
    }

    /// A fixed text form (`fit:320x320`), for fingerprints.
    var key: String {
        switch self {
        case .original: return "original"
        case .fit(let w, let h): return "fit:\(w)x\(h)"
        case .width(let w): return "width:\(w)"
        case .height(let h): return "height:\(h)"
        case .exact(let w, let h): return "exact:\(w)x\(h)"
        }
    }
}
