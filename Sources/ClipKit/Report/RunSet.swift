// The --json lines of one or more runs (one file per CI shard, say), merged by input, with the shards seen, missing and duplicated.
import Foundation

/// One input and every line any run wrote about it (gif, thumb, storyboard, info...).
public struct ClipRuns: Sendable {
    public var input: String
    public var lines: [RunLine]

    /// `error` when any line failed, else `skipped` when every line was skipped, else `ok`.
    public var status: String {
        if lines.contains(where: { $0.status == "error" }) { return "error" }
        if !lines.isEmpty && lines.allSatisfy({ $0.status == "skipped" }) { return "skipped" }
        return "ok"
    }

    public var errors: [String] { lines.compactMap { $0.status == "error" ? ($0.error ?? "failed") : nil } }
}

/// Every clip of the runs read, sorted by input, and what was noticed about the shards and lines.
public struct RunSet: Sendable {
    public var clips: [ClipRuns]
    /// `--shard` values seen (`1/3`), sorted.
    public var shardsSeen: [String]
    /// Shards of an `I/N` that no file holds.
    public var shardsMissing: [String]
    /// Shards that two files both hold (their repeated lines are read once).
    public var shardsDuplicated: [String]
    /// Lines that were not a JSON object naming an input, and the like: one sentence each.
    public var warnings: [String]
    /// Runs files in which no line is a clipkit --json line (empty, or a CI step that failed
    /// before printing one): each is a shard whose results are missing, and nothing in it was
    /// reported done, so they trip `--fail-on shards` and `failed` (`ReportWriter.gates`).
    public var filesWithoutLines: [String] = []

    /// The longest line read: a clipkit --json line is a few KB (its outputs, a dozen warnings).
    /// A 100 MB line (a crafted warning, an input name of 200 MB) took 25-50 s and 1-2 GB of
    /// memory through the parser and the page, and the 200 MB name came out as a clip.
    static let maxLineBytes = 1 << 20

    /// Reads each file's lines; the files' order decides nothing but which copy of a repeated line is kept.
    public static func read(_ urls: [URL], limits: Limits = Limits()) throws -> RunSet {
        var texts: [(String, String)] = []
        for url in urls {
            // A regular file only (a FIFO or device would block), read up to its size.
            try InputFile.check(url.path, allowingEmpty: true)
            guard let data = FileSystemPath.contentsOfRegularFile(url.path, limit: limits.maxMemory) else {
                throw ClipKitError.unreadable(path: url.path, reason: String(cString: strerror(errno)))
            }
            guard data.count <= limits.maxMemory else {
                throw ClipKitError.unreadable(path: url.path, reason: "larger than \(limits.maxMemory) bytes (split it, one run file per shard)")
            }
            texts.append((url.path, String(decoding: data, as: UTF8.self)))
        }
        return merge(texts)
    }

    /// `texts`: (file name, contents) pairs.
    public static func merge(_ texts: [(String, String)]) -> RunSet {
        // Inputs, lines and files by their bytes (`NameBytes`): two names that are canonically
        // equivalent strings are still two files.
        var byInput: [NameBytes: ClipRuns] = [:]
        // A shard's line: how many times one file held it, at most (the copies kept).
        var shardLines: [NameBytes: Int] = [:]
        var sources = Set<NameBytes>()
        var shardFiles: [String: Set<NameBytes>] = [:]
        var warnings: [String] = []
        var filesWithoutLines: [String] = []
        for (source, text) in texts {
            // The same file named twice is read once.
            guard sources.insert(NameBytes(source)).inserted else { continue }
            var read = false
            var inFile: [NameBytes: Int] = [:]
            for (index, line) in lines(of: text).enumerated() {
                guard line.utf8.count <= maxLineBytes else {
                    warnings.append("\(source):\(index + 1): a line of \(line.utf8.count) bytes, longer than any clipkit --json line (\(maxLineBytes / 1024) KiB at most), skipped")
                    continue
                }
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                guard let parsed = RunLine(text: trimmed, source: source, lineNumber: index + 1) else {
                    warnings.append("\(source):\(index + 1): not a clipkit --json line")
                    continue
                }
                read = true
                if let shard = parsed.shard { shardFiles[shard, default: []].insert(NameBytes(source)) }
                // A shard's line that another file holds too (the shard uploaded or run twice) is
                // one result, not two. Any other line is its own result, however like another it
                // reads: gif, thumb and storyboard failing on one input print the same line
                // (`seconds` apart, often not even that), and each failed; merged, a clip's three
                // failures showed as one.
                let identity = NameBytes(Self.identity(of: parsed))
                inFile[identity, default: 0] += 1
                if parsed.shard != nil {
                    guard inFile[identity]! > shardLines[identity, default: 0] else { continue }
                    shardLines[identity] = inFile[identity]!
                }
                byInput[NameBytes(parsed.input), default: ClipRuns(input: parsed.input, lines: [])].lines.append(parsed)
            }
            if !read {
                filesWithoutLines.append(source)
                warnings.append("\(source): no clipkit --json lines")
            }
        }
        let clips = byInput.values.sorted { NameBytes.precedes($0.input, $1.input) }
        let seen = shardFiles.keys.sorted(by: Self.shardOrder)
        let duplicated = seen.filter { shardFiles[$0]!.count > 1 }
        return RunSet(clips: clips, shardsSeen: seen, shardsMissing: missingShards(seen), shardsDuplicated: duplicated, warnings: warnings,
                      filesWithoutLines: filesWithoutLines)
    }

    /// `text`'s lines, split at each LF byte with a CR before it dropped: a file written on
    /// Windows (or by a CI step that converts line ends) reads like any other. Splitting on the
    /// Character "\n" found no line end at all there, as Swift takes "\r\n" for one Character.
    /// A UTF-8 byte-order mark (which Windows tools write first) is dropped at the start of each
    /// line, so files joined with `cat` lose theirs too: JSON has no place for one.
    static func lines(of text: String) -> [Substring] {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        return text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { bytes in
            var bytes = bytes
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            if bytes.starts(with: mark) { bytes = bytes.dropFirst(mark.count) }
            return Substring(bytes)
        }
    }

    /// A line's identity for de-duplication of a shard read twice: what it says, not how long it took.
    static func identity(of line: RunLine) -> String {
        line.fields.filter { $0.key != "seconds" }.map { "\($0.key)=\($0.text)" }.joined(separator: "\u{1}")
    }

    /// For every total N among `seen` (`I/N`), the shards 1...N not seen.
    static func missingShards(_ seen: [String]) -> [String] {
        let parsed = seen.compactMap(parseShard)
        var missing: [String] = []
        for total in Set(parsed.map(\.1)).sorted() where total <= 10_000 {
            let have = Set(parsed.filter { $0.1 == total }.map(\.0))
            missing += (1...total).filter { !have.contains($0) }.map { "\($0)/\(total)" }
        }
        return missing
    }

    static func parseShard(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let total = Int(parts[1]), total >= 1 else { return nil }
        return (index, total)
    }

    static func shardOrder(_ a: String, _ b: String) -> Bool {
        switch (parseShard(a), parseShard(b)) {
        case let (x?, y?): return (x.1, x.0) < (y.1, y.0)
        default: return a < b
        }
    }
}
