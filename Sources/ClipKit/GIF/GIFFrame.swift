// The plain data shared by the GIF decoder and encoder: one stored image record and its graphic control.

/// What happens to a frame's rectangle before the next frame is drawn (GIF89a disposal method).
public enum GIFDisposal: String, Sendable, Equatable, Codable {
    /// 0: no disposal specified; browsers treat it like `none`.
    case unspecified
    /// 1: leave the frame in place.
    case none
    /// 2: clear the rectangle to transparent.
    case background
    /// 3: restore the canvas as it was before the frame.
    case previous

    public init(code: Int) {
        switch code {
        case 1: self = .none
        case 2: self = .background
        case 3: self = .previous
        default: self = .unspecified
        }
    }

    public var code: Int {
        switch self {
        case .unspecified: return 0
        case .none: return 1
        case .background: return 2
        case .previous: return 3
        }
    }
}

/// One image of a GIF as stored: a rectangle of palette indices with its graphic control.
public struct GIFFrame: Sendable, Equatable {
    public var left: Int
    public var top: Int
    public var width: Int
    public var height: Int
    /// Delay after this image, in centiseconds.
    public var delay: Int
    public var disposal: GIFDisposal
    public var transparentIndex: Int?
    public var interlaced: Bool
    /// The local colour table as RGB triples, nil when the global one applies.
    public var localPalette: [UInt8]?
    /// `width * height` palette indices, row by row in display order (de-interlaced).
    public var indices: [UInt8]
    /// False for an image of a GIF89a file with no graphic control extension before it: such
    /// images tile one picture with the images before them (`Compositor.displayedFrames`).
    /// A GIF87a file has no extensions: each of its images counts as having one.
    public var hasGraphicControl = true

    public init(left: Int = 0, top: Int = 0, width: Int, height: Int, delay: Int = 0,
                disposal: GIFDisposal = .none, transparentIndex: Int? = nil, interlaced: Bool = false,
                localPalette: [UInt8]? = nil, indices: [UInt8]) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.delay = delay
        self.disposal = disposal
        self.transparentIndex = transparentIndex
        self.interlaced = interlaced
        self.localPalette = localPalette
        self.indices = indices
    }
}
