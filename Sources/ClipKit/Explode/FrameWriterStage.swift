// The PNG stage of explode: encodes and writes frames on a fixed number of threads while the caller decodes the next.
import Foundation

/// One frame to write: the picture, its file name in the staging directory, and its place in
/// the order the caller handed frames over.
struct FrameFile: Sendable {
    var image: RGBAImage
    var name: String
    var index: Int
}

/// Writes PNG frames into a directory on the stage threads of `pipeline`, or on the caller's
/// thread when the pictures are too large for that (see `layout`).
///
/// Frames go round-robin to a fixed number of writers (`Layout.workers`, never the core count),
/// each with a queue of `Layout.capacity` frames, so memory is a fixed number of pictures
/// whatever the machine. Each frame is its own file, so the output is the same whichever writer
/// finishes first. An error in any writer stops the caller and every writer (none starts a frame
/// after the failed one once the failure is known); the error reported is that of the earliest
/// frame that failed, once every writer has stopped.
struct FrameWriterStage {
    /// How many threads write and how many frames wait for each.
    struct Layout: Equatable, Sendable {
        var workers: Int
        var capacity: Int

        /// Pictures held besides the caller's own: the queued ones, the one each writer encodes,
        /// and the caller's next (waiting to be queued).
        var pictures: Int { workers * (capacity + 1) + 1 }

        /// Two writers with one frame waiting for each.
        static let twoWriters = Layout(workers: 2, capacity: 1)
        /// One writer with two frames waiting.
        static let oneWriter = Layout(workers: 1, capacity: 2)
    }

    /// The layouts tried, fastest first; when none fits, frames are written on the caller's thread.
    static let layouts: [Layout] = [.twoWriters, .oneWriter]

    /// Whether `layout` fits `limits` beside the caller's `callerPictures` pictures of `pictureBytes`.
    static func fitsPipelined(_ layout: Layout, pictureBytes: Int, callerPictures: Int, limits: Limits) -> Bool {
        limits.picturesInMemory(of: pictureBytes) >= callerPictures + layout.pictures
    }

    /// The fastest layout that fits `limits`, or nil to write on the caller's thread.
    static func layout(pictureBytes: Int, callerPictures: Int, limits: Limits) -> Layout? {
        layouts.first { fitsPipelined($0, pictureBytes: pictureBytes, callerPictures: callerPictures, limits: limits) }
    }

    private let queues: [BoundedQueue<FrameFile>]
    private let done: [BoundedQueue<Int>]
    /// The earliest frame (by `FrameFile.index`) whose write failed, and why.
    private let failure: LockedBox<(index: Int, error: any Error)?>
    private let directory: URL
    private let filter: PNGWriter.Filter
    private let budget: ByteBudget
    /// Checked inside each frame's write too: one frame of a huge canvas takes seconds.
    private let deadline: Deadline
    /// The input, named when the deadline passes.
    private let source: String
    private var handedOver = 0

    /// Writes on the writers of `layout`, started in `pipeline` as threads `LABEL.png1`,
    /// `LABEL.png2`...; on the caller's thread when `layout` is nil. Tests give a `label` of their own.
    init(pipeline: Pipeline, layout: Layout?, directory: URL, filter: PNGWriter.Filter, budget: ByteBudget,
         deadline: Deadline = .none, source: String = "", label: String = "ck") {
        self.directory = directory
        self.filter = filter
        self.budget = budget
        self.deadline = deadline
        self.source = source
        let failure = LockedBox<(index: Int, error: any Error)?>(nil)
        self.failure = failure
        guard let layout else {
            queues = []
            done = []
            return
        }
        let queues: [BoundedQueue<FrameFile>] = (0..<layout.workers).map { _ in pipeline.queue(capacity: layout.capacity) }
        self.queues = queues
        done = queues.indices.map { worker in
            let queue = queues[worker]
            return pipeline.stage("\(label).png\(worker + 1)", capacity: 1) { (done: BoundedQueue<Int>) in
                // Ending, for any reason, cancels the queue: the caller's push to it fails.
                defer { queue.cancel() }
                var written = 0
                while let frame = try queue.pop() {
                    // Frames after one that failed are not written. Earlier ones still are: the
                    // queue is in frame order, so each writer stops at its first frame past it.
                    if let failed = failure.withLock({ $0?.index }), failed < frame.index { break }
                    do {
                        try PNGWriter.write(frame.image, to: directory.appendingPathComponent(frame.name), channels: .rgba,
                                            filter: filter, budget: budget, deadline: deadline, source: source)
                    } catch {
                        failure.withLock { first in
                            if first.map({ frame.index < $0.index }) ?? true { first = (frame.index, error) }
                        }
                        throw error
                    }
                    written += 1
                }
                done.push(written)
            }
        }
    }

    /// Queues a frame for the next writer in turn, waiting while its queue is full; throws a
    /// writer's error.
    mutating func write(_ image: RGBAImage, name: String) throws {
        guard !queues.isEmpty else {
            return try PNGWriter.write(image, to: directory.appendingPathComponent(name), channels: .rgba, filter: filter, budget: budget,
                                       deadline: deadline, source: source)
        }
        let index = handedOver
        handedOver += 1
        // After a failure no more frames are handed over; a writer that stopped refuses them.
        if failure.withLock({ $0 == nil }), queues[index % queues.count].push(FrameFile(image: image, name: name, index: index)) {
            return
        }
        try finish()
        throw ClipKitError.internalFailure(path: name, reason: "the frame writer stopped")
    }

    /// Waits until every queued frame is written (or, after a failure, every writer has stopped),
    /// then throws the error of the earliest frame that failed, so which error is reported does
    /// not depend on which writer got there first.
    func finish() throws {
        for queue in queues { queue.finish() }
        var stageError: (any Error)?
        for done in done {
            do {
                _ = try done.pop()
            } catch {
                stageError = stageError ?? error
            }
        }
        if let failure = failure.withLock({ $0 }) { throw failure.error }
        if let stageError { throw stageError }
    }
}
