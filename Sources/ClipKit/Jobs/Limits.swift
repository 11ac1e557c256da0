// Resource limits for unattended runs: each has a default, an option that raises it, and is checked before allocating.
import Foundation

/// Bounds on what one input may cost. Exceeding one is a `ClipKitError.limitExceeded` naming
/// the limit and the option that raises it.
public struct Limits: Sendable, Equatable {
    /// Largest canvas or decoded frame, in pixels (`--max-pixels`).
    public var maxPixels = 100_000_000
    /// Most frames written for one input (`--max-frames`).
    public var maxFrames = 10_000
    /// Longest stretch of a clip converted, in seconds (`--max-duration`).
    public var maxDuration = 3600.0
    /// Largest output for one input, in bytes (`--max-output`).
    public var maxOutputBytes = 2 << 30
    /// Wall time allowed for one input (`--timeout`); nil for no limit.
    public var timeout: Double?

    public init() {}

    /// When a job started now must end, from `timeout`.
    public func deadline() -> Deadline { Deadline(seconds: timeout) }

    func checkFrames(_ count: Int, path: String) throws {
        if count > maxFrames {
            throw ClipKitError.limitExceeded(path: path, what: "frame count", limit: "\(maxFrames) frames", option: "--max-frames")
        }
    }

    func checkDuration(_ seconds: Double, path: String) throws {
        if seconds > maxDuration {
            throw ClipKitError.limitExceeded(path: path, what: String(format: "duration %.1fs", seconds),
                                             limit: String(format: "%gs", maxDuration), option: "--max-duration")
        }
    }

    func checkOutput(_ bytes: Int, path: String) throws {
        if bytes > maxOutputBytes {
            throw ClipKitError.limitExceeded(path: path, what: "output size", limit: "\(maxOutputBytes) bytes", option: "--max-output")
        }
    }
}

/// A point in time after which work on one input stops with an error. Checked in every loop
/// that reads input (packets, GIF records, frames), so a file that makes a decoder spin still
/// ends in bounded time.
public struct Deadline: Sendable, Equatable {
    private let end: UInt64?
    public let seconds: Double?

    public init(seconds: Double?) {
        self.seconds = seconds
        end = seconds.map { DispatchTime.now().uptimeNanoseconds + UInt64(max(0, $0) * 1e9) }
    }

    public static let none = Deadline(seconds: nil)

    public var hasPassed: Bool {
        guard let end else { return false }
        return DispatchTime.now().uptimeNanoseconds > end
    }

    public func check(_ path: String) throws {
        if hasPassed, let seconds {
            throw ClipKitError.limitExceeded(path: path, what: "processing time", limit: String(format: "%gs", seconds), option: "--timeout")
        }
    }
}
