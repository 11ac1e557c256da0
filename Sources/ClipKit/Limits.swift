// Resource limits for unattended runs: one value, created by the caller, carried down to where the work happens.
import Foundation

/// Bounds on what one input may cost. Each limit has one meaning and is checked where the work
/// it bounds happens; exceeding one is a `ClipKitError.limitExceeded` naming the limit and the
/// option that raises it.
public struct Limits: Sendable, Equatable {
    /// Largest canvas or decoded frame, in pixels (`--max-pixels`): checked against the headers
    /// before anything is allocated, and again on every decoded frame.
    public var maxPixels = 100_000_000
    /// Most pixels all images of one GIF may declare together (`--max-decoded-pixels`): decoding
    /// and compositing cost follows declared sizes, not file size, so a 60 KB file of thousands
    /// of huge zero-delay images is refused before any is decoded. 10 gigapixels is 10,000
    /// full 1000x1000 frames.
    public var maxDecodedPixels = 10_000_000_000
    /// Most frames written for one input (`--max-frames`).
    public var maxFrames = 10_000
    /// Longest stretch of the source converted, in seconds of source time from the start
    /// (`--max-duration`); `--speed` does not change it. Checked against the header duration
    /// and every frame's timestamp, so absurd timestamp gaps end in an error.
    public var maxDuration = 3600.0
    /// Largest output for one input, in bytes (`--max-output`); all of an input's files count.
    /// No byte past it is written.
    public var maxOutputBytes = 2 << 30
    /// Memory one input's pictures may take, in bytes (`--max-memory`): frames in flight between
    /// stages, canvases and the decoder's frame buffers. Queues shrink and decoder threads are
    /// fewer for large pictures; work that cannot fit even then is refused before decoding.
    public var maxMemory = 1 << 30
    /// Wall time allowed for one input (`--timeout`); nil for no limit.
    public var timeout: Double?
    /// When the work on the current input must end; set by `started()`.
    public private(set) var deadline = Deadline.none
    /// How a decode treats damage (`OutputJob.run`): FFmpeg's frame threads conceal a damaged
    /// picture differently from run to run, so a decode with several threads that meets damage
    /// gives up (`ThreadedDecodeDamage`) and the job is done again on one thread.
    var decoderThreads = DecoderThreads.perCore

    public init() {}

    /// These limits with the clock started: the deadline is `timeout` from now. Called once per
    /// input by the entry points (convert, explode, thumbnail), which pass the result down.
    public func started() -> Limits {
        var limits = self
        limits.deadline = Deadline(seconds: timeout)
        return limits
    }

    func checkDeadline(_ path: String) throws {
        try deadline.check(path)
    }

    func checkPixels(width: Int, height: Int, what: String, path: String) throws {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || area > maxPixels {
            throw ClipKitError.limitExceeded(path: path, what: "\(what) \(width)x\(height)",
                                             limit: "\(maxPixels) pixels", option: "--max-pixels")
        }
    }

    func checkDecodeWork(_ declaredPixels: Int, canvas: Int, path: String) throws {
        if declaredPixels > maxDecodedPixels {
            throw ClipKitError.limitExceeded(path: path, what: "\(declaredPixels) pixels declared by its images",
                                             limit: "\(maxDecodedPixels) pixels", option: "--max-decoded-pixels")
        }
    }

    /// How many pictures of `bytes` each fit in `maxMemory`.
    func picturesInMemory(of bytes: Int) -> Int {
        maxMemory / max(bytes, 1)
    }

    /// Refuses work that needs `count` pictures of `bytes` each at once.
    func checkMemory(pictures count: Int, of bytes: Int, what: String, path: String) throws {
        let (total, overflow) = bytes.multipliedReportingOverflow(by: count)
        if overflow || total > maxMemory {
            throw ClipKitError.limitExceeded(path: path, what: "memory for \(count) \(what) of \(bytes >> 20) MiB",
                                             limit: "\(maxMemory >> 20) MiB", option: "--max-memory")
        }
    }

    /// Refuses work that needs `bytes` at once, for `what` (the limit quoted as given, not what
    /// is left of it).
    func checkMemory(bytes: Int, for what: String, path: String) throws {
        if bytes > maxMemory {
            throw ClipKitError.limitExceeded(path: path, what: "memory for \(what) (\(bytes >> 20) MiB)",
                                             limit: "\(maxMemory >> 20) MiB", option: "--max-memory")
        }
    }

    func checkFrames(_ count: Int, path: String) throws {
        if count > maxFrames {
            throw ClipKitError.limitExceeded(path: path, what: "frame count", limit: "\(maxFrames) frames", option: "--max-frames")
        }
    }

    /// `seconds` of source time from the start are to be converted.
    func checkSourceSpan(_ seconds: Double, path: String) throws {
        if seconds > maxDuration {
            throw ClipKitError.limitExceeded(path: path, what: String(format: "%.1fs of source", seconds),
                                             limit: String(format: "%gs", maxDuration), option: "--max-duration")
        }
    }
}

/// A point in time after which work on one input stops with an error. Checked in every loop
/// that can run long (packets, GIF records and images, frames, writes), so a file that makes a
/// decoder spin still ends in bounded time.
public struct Deadline: Sendable, Equatable {
    private let end: UInt64?
    public let seconds: Double?

    public init(seconds: Double?) {
        self.seconds = seconds
        guard let seconds else {
            end = nil
            return
        }
        // Clamped: a timeout of 1e300 seconds is "never", not an overflow.
        let nanoseconds = min(max(0, seconds), 1e9 * 86400 * 365) * 1e9
        end = DispatchTime.now().uptimeNanoseconds + UInt64(nanoseconds)
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

/// The bytes one input may still write (`Limits.maxOutputBytes`), shared by all of its output
/// files: every write reserves its bytes first, so the limit holds before a byte past it is written.
final class ByteBudget: Sendable {
    private let remaining: LockedBox<Int>
    let limit: Int
    /// The input whose outputs share the budget (`OutputJob`): what their writers' errors name.
    let input: String?

    init(limit: Int, input: String? = nil) {
        self.limit = limit
        self.input = input
        remaining = LockedBox(limit)
    }

    /// Takes `count` bytes from the budget, or throws without taking any.
    func reserve(_ count: Int, path: String) throws {
        let fits = remaining.withLock { remaining -> Bool in
            guard count <= remaining else { return false }
            remaining -= count
            return true
        }
        if !fits {
            // The input's failure, naming the output as it would have been called (not the
            // hidden temp name a directory output is built under: `.sb.clipkit-Q2qd4k/storyboard.vtt`).
            let output = AtomicFile.finalPath(of: path)
            guard let input, input != output else {
                throw ClipKitError.limitExceeded(path: output, what: "output size", limit: "\(limit) bytes", option: "--max-output")
            }
            throw ClipKitError.limitExceeded(path: input, what: "\(output): output size", limit: "\(limit) bytes", option: "--max-output")
        }
    }
}

/// The threads a decode may use, for output that is the same from run to run.
enum DecoderThreads: Sendable, Equatable {
    /// One a core (`FrameReadOptions.threadCount`), damage or not: callers whose result is no
    /// output file (`info --count-frames`).
    case perCore
    /// One a core, giving up at the first damage seen: an output job's first attempt.
    case perCoreUntilDamage
    /// One: damage is concealed the same way every time (an output job's second attempt).
    case one
}

/// Thrown by a decode on several threads that met damage (`DecoderThreads.perCoreUntilDamage`): the job
/// decodes again on one thread. Never reaches the user.
struct ThreadedDecodeDamage: Error {}
