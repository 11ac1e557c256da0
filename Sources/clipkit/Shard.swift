// `--shard I/N`: a deterministic share of a batch's inputs, so N CI jobs cover each input once.
import ArgumentParser
import ClipKit

/// Shard `index` of `count` (1-based): an input belongs to it when a hash of its path relative
/// to the input root (as found in a directory, or as given) picks it. The same files give the same
/// shards on every machine, and adding a file moves no other file to another shard, so each
/// job's cached outputs stay valid.
struct Shard: Sendable, Equatable, CustomStringConvertible {
    var index: Int
    var count: Int

    static let maxCount = 10_000

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
              let index = Int(parts[0]), let count = Int(parts[1]),
              (1...Self.maxCount).contains(count), (1...count).contains(index) else { return nil }
        self.init(index: index, count: count)
    }

    /// Checks `--shard` text (a usage error, exit 2, when it is not I/N with 1 <= I <= N <= 10000).
    /// Parsed as a string and checked here: a failing custom argument type makes ArgumentParser
    /// leak on its way out, which LeakSanitizer turns into another exit status.
    static func validate(_ text: String?) throws {
        if let text, Shard(argument: text) == nil {
            throw ValidationError("--shard must be I/N with 1 <= I <= N <= \(maxCount), got '\(text)'")
        }
    }

    var description: String { "\(index)/\(count)" }

    /// True when the input with this relative path is in this shard.
    func contains(_ relativePath: String) -> Bool {
        // The first 64 bits of libavutil's murmur3 of the path's bytes, as hex, modulo the count.
        let hash = UInt64(ContentHash.ofBytes(FileSystemPath.bytes(relativePath)).prefix(16), radix: 16) ?? 0
        return Int(hash % UInt64(count)) == index - 1
    }
}
