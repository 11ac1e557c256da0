// Every output of one input, complete under temp names, moved into place together in one fixed order.
import Foundation

/// Something written in full under a temp name that `commit()` moves into place.
protocol PendingOutput: AnyObject {
    func commit() throws
}

extension AtomicFile: PendingOutput {}
extension FinishedFile: PendingOutput {}
extension StagingDirectory: PendingOutput {}

/// The outputs of one input, gathered as each is complete and committed only when all are, in
/// one fixed order whatever order they finished in: the main output (the GIF, the thumbnail or
/// posters, the exploded or storyboard directory), then the poster, then the WebP/MP4 files in
/// the order asked for. Before the first rename, each output that records its fingerprint at
/// its end (WebP, MP4) gets it. An output not committed (an error before `commit()`) is removed
/// when dropped, so an input's outputs appear all together or not at all.
struct OutputCommit {
    /// Where an output stands in the commit order.
    enum Role: Int, Comparable {
        case main, poster, companion
        static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }
    }

    private var entries: [(role: Role, output: any PendingOutput, trailer: (bytes: [UInt8], riffSize: Bool)?)] = []

    init() {}

    /// The main outputs of an input, in this order (a directory, or a thumbnail's posters).
    init(main outputs: [any PendingOutput]) {
        for output in outputs { add(output, as: .main) }
    }

    /// Adds a complete output.
    mutating func add(_ output: any PendingOutput, as role: Role) {
        entries.append((role, output, nil))
    }

    /// Adds a complete file that records its fingerprint at its end: `trailer` is appended
    /// before the first rename (with `riffSize`, the RIFF header's size follows: a WebP chunk).
    mutating func add(_ file: FinishedFile, as role: Role, trailer: [UInt8]?, riffSize: Bool = false) {
        entries.append((role, file, trailer.map { ($0, riffSize) }))
    }

    /// Records the trailing fingerprints, then renames every output into place in role order
    /// (in the order added within a role).
    func commit() throws {
        let ordered = entries.enumerated().sorted { ($0.element.role, $0.offset) < ($1.element.role, $1.offset) }.map(\.element)
        for entry in ordered {
            if let trailer = entry.trailer, let file = entry.output as? FinishedFile {
                try file.append(trailer.bytes, riffSize: trailer.riffSize)
            }
        }
        for entry in ordered { try entry.output.commit() }
    }
}
