// async entry points for the library: the blocking work runs on its own thread, never on Swift's
// cooperative pool (whose few threads must not wait on decoders).
import Foundation

/// Runs `body` on a new thread and resumes with its result.
func runOnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

extension GIFConverter {
    /// `convert(video:to:)` without blocking the caller's task.
    public func convert(video url: URL, to destination: URL) async throws -> GIFResult {
        let converter = self
        return try await runOnThread { try converter.convert(video: url, to: destination) }
    }
}

extension Thumbnailer {
    /// `thumbnail(of:)` without blocking the caller's task.
    public func thumbnail(of url: URL) async throws -> RGBAImage {
        let thumbnailer = self
        return try await runOnThread { try thumbnailer.thumbnail(of: url) }
    }
}

extension FrameSequence: AsyncSequence {
    public typealias Element = VideoFrame

    /// Pulls frames with `for try await frame in sequence`; each wait happens off the cooperative pool.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: FrameSequence
        public mutating func next() async throws -> VideoFrame? {
            let sequence = self.sequence
            return try await runOnThread { try sequence.next() }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}

extension VideoReader {
    /// Opens `url` and starts decoding with `options`: `for try await frame in try VideoReader(url, options).frames`.
    public convenience init(_ url: URL, _ options: FrameReadOptions) throws {
        try self.init(url: url, maxPixels: options.maxPixels)
        pendingOptions = options
    }

    /// The frames, decoded with the options given to `init(_:_:)` (defaults otherwise).
    public var frames: FrameSequence {
        get throws { try frames(options: pendingOptions ?? FrameReadOptions()) }
    }
}
