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

    /// The upright size, after rotation.
    public var width: Int { rotation.outputSize(width: codedWidth, height: codedHeight).width }
    public var height: Int { rotation.outputSize(width: codedWidth, height: codedHeight).height }
}
