// Remembers which outputs were made from which input with which options, so unchanged work is skipped.
import ClipKit
import Foundation

/// A small `.clipkit-state.json` in each output directory maps output names to the input they
/// were made from (path, size, modification time) and the options used. An output is up to date
/// when it exists, is not older than its input, and its entry matches: then the input is
/// skipped. Changed options or a changed input redo the work.
final class IncrementalState: Sendable {
    static let fileName = ".clipkit-state.json"

    struct Entry: Codable, Equatable {
        var input: String
        var size: Int64
        var modified: Double
        var options: String
    }

    private let directories = Locked<[String: [String: Entry]]>([:])
    /// A larger state file is ignored (and rewritten): reading it whole would cost its size in memory.
    static let maxStateBytes = 16 << 20

    init() {}

    /// True when `output` was made from `input` as it is now, with `options`.
    func isUpToDate(output: URL, input: URL, options: String) -> Bool {
        guard let expected = Self.entry(input: input, options: options),
              let outputModified = Self.modified(output), outputModified >= expected.modified else { return false }
        return directories.withLock { directories in
            Self.entries(in: output.deletingLastPathComponent(), cache: &directories)[output.lastPathComponent] == expected
        }
    }

    /// Records that `output` was just made from `input` with `options`, and saves the directory's state.
    func record(output: URL, input: URL, options: String) {
        guard let entry = Self.entry(input: input, options: options) else { return }
        let directory = output.deletingLastPathComponent()
        // Under the lock: two jobs finishing in one directory must not write its state at once.
        directories.withLock { directories in
            var map = Self.entries(in: directory, cache: &directories)
            map[output.lastPathComponent] = entry
            directories[directory.path] = map
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            if let data = try? encoder.encode(map) {
                // Best effort: losing the state only means redoing work next time.
                try? data.write(to: directory.appendingPathComponent(Self.fileName), options: .atomic)
            }
        }
    }

    private static func entries(in directory: URL, cache: inout [String: [String: Entry]]) -> [String: Entry] {
        if let cached = cache[directory.path] { return cached }
        let path = directory.appendingPathComponent(fileName).path
        var map: [String: Entry] = [:]
        if let handle = FileHandle(forReadingAtPath: path) {
            defer { try? handle.close() }
            if let data = try? handle.read(upToCount: maxStateBytes + 1), data.count <= maxStateBytes {
                map = (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
            }
        }
        cache[directory.path] = map
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
