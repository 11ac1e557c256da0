// The video-like outputs besides GIF: animated WebP and MP4 (H.264), and what each needs from FFmpeg.

/// An animation format written through libavcodec and libavformat (`AnimationWriter`).
public enum AnimationFormat: String, Sendable, CaseIterable {
    /// Animated WebP (libwebp through libavcodec's `libwebp_anim`): lossy or lossless, keeps alpha, loops.
    case webp
    /// MP4 with one H.264 (libx264) yuv420p stream, `moov` first (fast start), no audio.
    case mp4

    /// The format a file name asks for by its extension (`.webp`, `.mp4`, any case); nil otherwise.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "webp": self = .webp
        case "mp4", "m4v": self = .mp4
        default: return nil
        }
    }

    /// The name users know it by, for messages.
    var displayName: String {
        switch self {
        case .webp: return "WebP"
        case .mp4: return "MP4"
        }
    }

    /// libavcodec's name of the encoder.
    var encoderName: String {
        switch self {
        case .webp: return "libwebp_anim"
        case .mp4: return "libx264"
        }
    }

    /// The library libavcodec must be built with, for the missing-encoder message.
    var encoderLibrary: String {
        switch self {
        case .webp: return "libwebp"
        case .mp4: return "libx264"
        }
    }

    /// libavformat's name of the muxer.
    var muxerName: String {
        switch self {
        case .webp: return "webp"
        case .mp4: return "mp4"
        }
    }

    /// Largest width or height the format takes: WebP stores sizes in 14 bits (16383); x264
    /// refuses more than 16384 (and H.264 levels end at 8192x4320 anyway).
    var maxDimension: Int {
        switch self {
        case .webp: return 16383
        case .mp4: return 16384
        }
    }

    /// Timestamps are counted in these units a second: WebP stores milliseconds; 90 kHz is
    /// MPEG's clock, fine enough that any frame rate's times round by under 6 us.
    var ticksPerSecond: Int32 {
        switch self {
        case .webp: return 1000
        case .mp4: return 90000
        }
    }
}
