// The typed errors of ClipKit: each names the file, what was wrong and, where it helps, what to do.
import Foundation

/// Every error ClipKit throws: each case names the file (or option) and says what was wrong in one line
/// (`description`), so a command-line tool can print it as is.
public enum ClipKitError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The input path does not exist.
    case fileNotFound(path: String)
    /// A directory was given where a file is expected.
    case isDirectory(path: String)
    /// The input exists but is not a regular, readable file (a FIFO, a device, no permission).
    case unreadable(path: String, reason: String)
    /// libavformat (or the GIF decoder) cannot read the file as media.
    case notMedia(path: String, reason: String)
    /// The file has streams, but none is video.
    case noVideoStream(path: String)
    /// The file's data is damaged beyond what can be decoded.
    case corrupt(path: String, reason: String)
    /// Decoding produced no frame in the requested range.
    case noFrames(path: String, reason: String)
    /// `--start`/`--at` lies beyond the end of the clip.
    case startPastEnd(path: String, start: Double, duration: Double)
    /// An option has a value that cannot work.
    case invalidOption(name: String, reason: String)
    /// A resource limit was exceeded; `option` raises it.
    case limitExceeded(path: String, what: String, limit: String, option: String)
    /// No output meets the size and quality asked for (`--max-bytes`, `--min-quality`), or the
    /// limits of its format (a storyboard's tiles too large for a sheet).
    case cannotFit(path: String, reason: String)
    /// The output cannot be written.
    case outputFailed(path: String, reason: String)
    /// The output would replace one of the inputs.
    case outputIsInput(path: String)
    /// A C library reported a failure we could not attribute to the input.
    case internalFailure(path: String, reason: String)
    /// The FFmpeg libraries here were built without the encoder an output format needs.
    case encoderMissing(path: String, format: String, encoder: String, library: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .isDirectory(let path):
            return "\(path): is a directory, expected a file"
        case .unreadable(let path, let reason):
            return "\(path): cannot read: \(reason)"
        case .notMedia(let path, let reason):
            return "\(path): not a video or image file clipkit can read (\(reason))"
        case .noVideoStream(let path):
            return "\(path): no video stream (audio-only or data file)"
        case .corrupt(let path, let reason):
            return "\(path): damaged file: \(reason)"
        case .noFrames(let path, let reason):
            return "\(path): no frames: \(reason)"
        case .startPastEnd(let path, let start, let duration):
            // The time asked for, whichever option asked (`--start`, `--at`); a stream whose
            // timestamps run backwards has no positive length to give.
            let length = duration > 0 ? "duration \(Self.seconds(duration))" : "its frames' times end before it"
            return "\(path): \(Self.seconds(start)) is past the end of the clip (\(length))"
        case .invalidOption(let name, let reason):
            return "\(name): \(reason)"
        case .limitExceeded(let path, let what, let limit, let option):
            return "\(path): \(what) exceeds the limit of \(limit) (raise it with \(option))"
        case .cannotFit(let path, let reason):
            return "\(path): \(reason)"
        case .outputFailed(let path, let reason):
            return "\(path): cannot write output: \(reason)"
        case .outputIsInput(let path):
            return "\(path): output would overwrite an input; choose another -o"
        case .internalFailure(let path, let reason):
            return "\(path): \(reason)"
        case .encoderMissing(let path, let format, let encoder, let library):
            return "\(path): cannot write \(format): this FFmpeg has no \(encoder) encoder "
                + "(install a libavcodec built with \(library), e.g. Debian's libavcodec-extra)"
        }
    }

    public var errorDescription: String? { description }

    /// True for errors caused by how clipkit was called rather than by an input file.
    public var isUsageError: Bool {
        if case .invalidOption = self { return true }
        return false
    }

    /// An output's directory (or one above it) that could not be made, with the system's reason
    /// (`lf/` where lf is a link to a device: "Not a directory").
    public static func cannotCreateDirectory(_ path: String, _ error: POSIXError) -> ClipKitError {
        .outputFailed(path: path, reason: "cannot create directory: \(String(cString: strerror(error.code.rawValue)))")
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.3fs", value)
    }

    /// The file this error names first (nil for an option).
    public var path: String? {
        switch self {
        case .fileNotFound(let path), .isDirectory(let path), .unreadable(let path, _), .notMedia(let path, _),
             .noVideoStream(let path), .corrupt(let path, _), .noFrames(let path, _), .startPastEnd(let path, _, _),
             .limitExceeded(let path, _, _, _), .cannotFit(let path, _), .outputFailed(let path, _), .outputIsInput(let path),
             .internalFailure(let path, _), .encoderMissing(let path, _, _, _):
            return path
        case .invalidOption:
            return nil
        }
    }

    /// `description` without the leading path, for a warning that the input already prefixes.
    var unnamed: String {
        guard let path, description.hasPrefix(path + ": ") else { return description }
        return String(description.dropFirst(path.count + 2))
    }

    /// This error as one of `input`'s: an error naming another file (an output being written)
    /// names `input` instead, with that file first in its reason, so every failure of an input
    /// is one line that starts with it, whichever of its outputs met it
    /// (`in.mp4: cannot write output: a.webp: WebP frames are at most ...`). `input` is spelled
    /// as the error spells it when it is about the input itself: an error already naming it is
    /// returned as it is.
    public func naming(input: String) -> ClipKitError {
        switch self {
        case .unreadable(let path, let reason) where path != input: return .unreadable(path: input, reason: "\(path): \(reason)")
        case .notMedia(let path, let reason) where path != input: return .notMedia(path: input, reason: "\(path): \(reason)")
        case .corrupt(let path, let reason) where path != input: return .corrupt(path: input, reason: "\(path): \(reason)")
        case .noFrames(let path, let reason) where path != input: return .noFrames(path: input, reason: "\(path): \(reason)")
        case .cannotFit(let path, let reason) where path != input: return .cannotFit(path: input, reason: "\(path): \(reason)")
        case .outputFailed(let path, let reason) where path != input: return .outputFailed(path: input, reason: "\(path): \(reason)")
        case .outputIsInput(let path) where path != input:
            return .outputFailed(path: input, reason: "\(path) would overwrite an input; choose another -o")
        case .internalFailure(let path, let reason) where path != input: return .internalFailure(path: input, reason: "\(path): \(reason)")
        case .limitExceeded(let path, let what, let limit, let option) where path != input:
            return .limitExceeded(path: input, what: "\(path): \(what)", limit: limit, option: option)
        case .encoderMissing(let path, let format, let encoder, let library) where path != input:
            // The format says which output.
            return .encoderMissing(path: input, format: format, encoder: encoder, library: library)
        default:
            return self
        }
    }
}
