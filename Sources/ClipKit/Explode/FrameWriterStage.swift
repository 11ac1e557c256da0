// The PNG stage of explode: encodes and writes frames on its own thread while the caller decodes the next.
import Foundation

/// One frame to write: the picture and its file name in the staging directory.
struct FrameFile: Sendable {
    var image: RGBAImage
    var name: String
}

/// Writes PNG frames into a directory on one stage thread of `pipeline`. At most `capacity`
/// frames wait, so memory is a fixed number of canvases whatever the core count. Pictures too
/// large for that (see `plan`) are written on the caller's thread instead, one at a time.
struct FrameWriterStage {
    private let queue: BoundedQueue<FrameFile>?
    private let done: BoundedQueue<Int>?
    private let directory: URL
    private let filter: PNGWriter.Filter
    private let budget: ByteBudget

    /// Whether `pictures` pictures (besides the caller's) fit `limits` for a pipelined writer
    /// of `capacity`: it holds the queued ones, the one it encodes and the caller's next.
    static func fitsPipelined(capacity: Int, pictureBytes: Int, callerPictures: Int, limits: Limits) -> Bool {
        limits.picturesInMemory(of: pictureBytes) >= callerPictures + capacity + 2
    }

    /// Writes on the caller's thread.
    init(directory: URL, filter: PNGWriter.Filter, budget: ByteBudget) {
        queue = nil
        done = nil
        self.directory = directory
        self.filter = filter
        self.budget = budget
    }

    init(pipeline: Pipeline, directory: URL, filter: PNGWriter.Filter, budget: ByteBudget, capacity: Int = 2) {
        self.directory = directory
        self.filter = filter
        self.budget = budget
        let queue: BoundedQueue<FrameFile> = pipeline.queue(capacity: capacity)
        self.queue = queue
        done = pipeline.stage("ck.png", capacity: 1) { (done: BoundedQueue<Int>) in
            defer { queue.cancel() }
            var written = 0
            while let frame = try queue.pop() {
                try PNGWriter.write(frame.image, to: directory.appendingPathComponent(frame.name), channels: .rgba,
                                    filter: filter, budget: budget)
                written += 1
            }
            done.push(written)
        }
    }

    /// Queues a frame, waiting while `capacity` frames wait; throws the writer's error.
    func write(_ image: RGBAImage, name: String) throws {
        guard let queue, let done else {
            return try PNGWriter.write(image, to: directory.appendingPathComponent(name), channels: .rgba, filter: filter, budget: budget)
        }
        if !queue.push(FrameFile(image: image, name: name)) {
            // The writer stopped early: its error says why.
            _ = try done.pop()
            throw ClipKitError.internalFailure(path: name, reason: "the frame writer stopped")
        }
    }

    /// Waits until every queued frame is written; throws the first write error.
    func finish() throws {
        guard let queue, let done else { return }
        queue.finish()
        _ = try done.pop()
    }
}
