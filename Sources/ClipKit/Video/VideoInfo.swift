// What a video file holds, read from its headers before any frame is decoded.

/// Metadata of the video stream a `VideoReader` reads.
public struct VideoInfo: Sendable, Equatable {
    /// libavformat's name for the container ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", ...).
    public var container: String
    /// The codec's short name ("h264", "hevc", "vp9", ...).
    public var codec: String
    /// The stored picture size, before rotation.
    public var codedWidth: Int
    public var codedHeight: Int
    /// The shape of one stored pixel (width, height): 1:1 for square pixels; 64:45 for a
    /// widescreen PAL DVD, whose 720x576 pictures are shown 1024 wide.
    public var sampleAspectRatio: (width: Int, height: Int) = (1, 1)
    /// How the stored picture is turned for display.
    public var rotation: Rotation
    /// The duration in seconds, nil when neither stream nor container knows it.
    public var duration: Double?
    /// The nominal frame rate from the headers, nil when absent, zero or absurd (over 1000 fps).
    public var frameRate: Double?
    /// The pixel format's name ("yuv420p", "yuv420p10le", ...).
    public var pixelFormat: String
    /// Bits per colour component of the stored pixels.
    public var bitDepth: Int
    /// Frame count from the headers, when the container stores one.
    public var frameCount: Int?
    public var hasAudio: Bool
    /// Whether pictures can have transparent pixels (a pixel format with alpha, a GIF with
    /// transparency): outputs then keep it.
    public var hasAlpha = false
    /// The picture is an audio file's cover art (its one picture, no duration), read only where
    /// asked for (`thumb`).
    public var isCoverArt = false
    /// The stream's first timestamp is before zero (a Matroska remux with `-avoid_negative_ts
    /// disabled`, a cut keeping the frames before it): the header's duration may then be where
    /// the timestamps end, short of the clip's length (`clipDuration`).
    var startsBeforeZero = false
    /// The header's length is the container's, which holds audio too (Matroska and WebM give
    /// their streams no length of their own): it may be where the audio ends, past the last
    /// frame (`clipDuration` measures the video's own).
    var lengthMayRunPastVideo = false
    /// Colour description from the stream: primaries, transfer, matrix and range as FFmpeg names
    /// them ("bt2020", "smpte2084", "bt2020nc", "tv"); nil when unspecified.
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorMatrix: String?
    public var colorRange: String?
    /// True for PQ (HDR10) and HLG transfers: frames are tone-mapped to BT.709 SDR.
    public var isHDR: Bool { colorTransfer == "smpte2084" || colorTransfer == "arib-std-b67" }

    /// The stored picture as shown, in square pixels, before rotation: the width is stretched
    /// (or narrowed) by the sample aspect ratio, as ffmpeg's `scale=iw*sar:ih` and players do.
    public var displayWidth: Int {
        guard sampleAspectRatio != (1, 1), sampleAspectRatio.height > 0 else { return codedWidth }
        return max(1, Int((Double(codedWidth) * Double(sampleAspectRatio.width) / Double(sampleAspectRatio.height)).rounded()))
    }

    /// The display aspect ratio of the upright picture (width / height).
    public var displayAspectRatio: Double { Double(width) / Double(max(height, 1)) }

    /// The upright size in square pixels: after the sample aspect ratio and rotation.
    public var width: Int { rotation.outputSize(width: displayWidth, height: codedHeight).width }
    public var height: Int { rotation.outputSize(width: displayWidth, height: codedHeight).height }

    /// Bytes a decoded picture takes per 64 pixels, from the pixel format (`Demuxer`): its
    /// padded bits a pixel times 8, e.g. 96 for yuv420p, 384 for yuv444p10le, 256 for argb and
    /// rgb0; nil when unknown (then taken as 4:2:0).
    var decodedBytesPer64Pixels: Int?

    /// About what one decoded picture takes (a decoder's buffers add 2-3% of padding), at its
    /// pixel format's bits a pixel. (4:2:0 was assumed for every format before: a 4:4:4 10-bit
    /// or an RGBA picture is 2-2.7 times that, so the decoder's threads and the pictures kept,
    /// sized from `--max-memory`, could take that much more.)
    var decodedPictureBytes: Int {
        let per64 = decodedBytesPer64Pixels ?? 96 * (bitDepth > 8 ? 2 : 1)
        // A header's sizes (each at most 2^31) multiply within Int; times the bytes, they may
        // not: such a picture takes more than any budget.
        let (bytes, overflow) = (codedWidth * codedHeight).multipliedReportingOverflow(by: per64)
        return overflow || bytes > Int.max - 63 ? Int.max / 64 : (bytes + 63) / 64
    }

    public static func == (a: VideoInfo, b: VideoInfo) -> Bool {
        a.container == b.container && a.codec == b.codec && a.codedWidth == b.codedWidth && a.codedHeight == b.codedHeight
            && a.sampleAspectRatio == b.sampleAspectRatio && a.rotation == b.rotation && a.duration == b.duration
            && a.frameRate == b.frameRate && a.pixelFormat == b.pixelFormat && a.bitDepth == b.bitDepth
            && a.frameCount == b.frameCount && a.hasAudio == b.hasAudio && a.colorTransfer == b.colorTransfer
            && a.colorPrimaries == b.colorPrimaries && a.colorMatrix == b.colorMatrix && a.colorRange == b.colorRange
    }
}
