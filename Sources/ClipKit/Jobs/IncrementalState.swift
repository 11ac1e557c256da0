// Remembers which outputs were made from which input with which options, so unchanged work is skipped.
import Foundation

/// A small `.clipkit-state.json` in each output directory maps output names to the input they
/// were made from (path, size, modification time) and the options used. An output is up to date
/// when it exists, is not older than its input, and its entry matches: then the input is
/// skipped. Changed options or a changed input redo the work.
public final class IncrementalState: @unchecked Sendable {
    public static let fileName = ".clipkit-state.json"

    struct Entry: Codable, Equatable {
        var input: String
        var size: Int64
        var modified: Double
        var options: String
    }

    private let lock = NSLock()
    private var directories: [String: [String: Entry]] = [:]

    public init() {}

    /// True when `output` was made from `input` as it is now, with `options`.
    public func isUpToDate(output: URL, input: URL, options: String) -> Bool {
        guard let expected = Self.entry(input: input, options: options),
              let outputModified = Self.modified(output), outputModified >= expected.modified else { return false }
        lock.lock(); defer { lock.unlock() }
        return entries(in: output.deletingLastPathComponent())[output.lastPathComponent] == expected
    }

    /// Records that `output` was just made from `input` with `options`, and saves the directory's state.
    public func record(output: URL, input: URL, options: String) {
        guard let entry = Self.entry(input: input, options: options) else { return }
        let directory = output.deletingLastPathComponent()
        lock.lock(); defer { lock.unlock() }
        var map = entries(in: directory)
        map[output.lastPathComponent] = entry
        directories[directory.path] = map
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        if let data = try? encoder.encode(map) {
            // Best effort: losing the state only means redoing work next time.
            try? AtomicFile.write(Array(data), to: directory.appendingPathComponent(Self.fileName))
        }
    }

    private func entries(in directory: URL) -> [String: Entry] {
        if let cached = directories[directory.path] { return cached }
        let url = directory.appendingPathComponent(Self.fileName)
        let map = (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode([String: Entry].self, from: $0) } ?? [:]
        directories[directory.path] = map
        return map
    }

    private static func entry(input: URL, options: String) -> Entry? {
        var info = stat()
        guard stat(input.path, &info) == 0 else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return Entry(input: input.standardizedFileURL.path, size: Int64(info.st_size), modified: modified, options: options)
    }

    private static func modified(_ url: URL) -> Double? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}
