// `clipkit report`'s product: reads the runs, compares with a baseline, and writes the report directory whole.
import Foundation

/// What `ReportWriter.write` produced, and which `--fail-on` gates it tripped.
public struct ReportResult: Sendable {
    public var directory: URL
    public var document: ReportDocument
    /// One sentence per tripped gate (empty: exit 0).
    public var gateFailures: [String]
}

/// Writes index.html, report.css, report.js, report.json, summary.md and media/ into a hidden
/// directory beside `target`, then renames it into place: a reader never sees half a report.
public struct ReportWriter: Sendable {
    public var options: ReportOptions

    public init(options: ReportOptions = ReportOptions()) {
        self.options = options
    }

    public func write(_ runs: RunSet, to target: URL, inputs: [URL] = []) throws -> ReportResult {
        let target = target.standardizedFileURL
        if let single = options.singleFile { try Self.checkReplaceable(single) }
        let staging = try ReportStaging(for: target, inputs: inputs)
        var clips = try ReportBuilder(target: target, options: options).clips(of: runs)
        try addGIFFilmstrips(to: &clips, staging: staging.url)
        var document = ReportDocument(runs: runs, clips: clips, removed: [], baselineName: nil)
        if let baseline = options.baseline {
            let comparison = try ChangeClassifier(baseline: baseline, limits: options.limits).compare(clips, staging: staging.url)
            clips = comparison.clips
            document = ReportDocument(runs: runs, clips: clips, removed: comparison.removed, baselineName: baseline.lastPathComponent)
        }
        do {
            try copyMedia(clips, into: staging.url)
            try write(ReportStyle.source, to: staging.url.appendingPathComponent(ReportStyle.fileName))
            try write(ReportStyle.icon, to: staging.url.appendingPathComponent(ReportStyle.iconName))
            try write(ReportScript.source, to: staging.url.appendingPathComponent(ReportScript.fileName))
            try write(ReportPage(report: document).html(), to: staging.url.appendingPathComponent("index.html"))
            try write(SummaryMarkdown.render(document, options: options), to: staging.url.appendingPathComponent("summary.md"))
            let files = (ReportStaging.files(under: staging.url) ?? []) + [ReportJSON.fileName]
            try write(ReportJSON.render(document, files: files.sorted()), to: staging.url.appendingPathComponent(ReportJSON.fileName))
        } catch let error as ClipKitError {
            // Named after the report the user asked for, not the hidden directory it is built in.
            throw StagingDirectory.userFacing(error, target: target)
        } catch {
            throw ClipKitError.outputFailed(path: target.path, reason: "\(error)")
        }
        try staging.commit()
        if let single = options.singleFile {
            let page = SingleFilePage(directory: target, maxInline: options.maxInline, location: single.deletingLastPathComponent())
                .html(from: ReportPage(report: document).html())
            try AtomicFile.write(Array(page.utf8), to: single)
        }
        return ReportResult(directory: target, document: document, gateFailures: gates(document))
    }

    /// Refuses, before anything is written, a `--single-file` path that holds a file clipkit
    /// report did not write (no generator mark in its first 4 KB): it replaced a `page.html` of
    /// the user's own. A missing file, a device or a page it wrote pass.
    static func checkReplaceable(_ single: URL) throws {
        if let target = FileSystemPath.danglingLinkTarget(single.path) {
            throw ClipKitError.outputFailed(path: single.path, reason: "is a symbolic link to \(target), which does not exist; remove it or name another file")
        }
        guard FileSystemPath.isRegularFile(single.path) else { return }
        let head = FileSystemPath.contentsOfRegularFile(single.path, limit: 4096).map { String(decoding: $0.prefix(4096), as: UTF8.self) } ?? ""
        guard !head.contains(ReportPage.generatorMark) else { return }
        throw ClipKitError.outputFailed(path: single.path, reason: "exists and was not written by clipkit report; remove it or name another file")
    }

    /// A filmstrip from each clip's first GIF when no `explode` output shows its frames; the
    /// sheets go in `media/` (one pixel budget for the whole report: see `GIFFilmstrip`). The
    /// budget is spent in input order: once a clip does not fit, no later clip gets pictures (a
    /// smaller GIF further on did, so which clips had none depended on their sizes, not their order).
    private func addGIFFilmstrips(to clips: inout [ReportClip], staging: URL) throws {
        var budget = options.filmstripPixelBudget
        for index in clips.indices where clips[index].frames == nil {
            guard let gif = clips[index].outputs.first(where: { $0.kind == .gif && $0.source != nil })?.source else { continue }
            try options.limits.checkDeadline(gif.path)
            try ReportStaging.makeDirectory(staging.appendingPathComponent("media"))
            let strip = try GIFFilmstrip.make(from: gif, writingSheet: "media/\(clips[index].id)-frames.png", in: staging,
                                              budget: &budget, limits: options.limits)
            if strip?.skippedForBudget == true { budget = 0 }
            clips[index].gifFrames = strip
        }
    }

    /// The `--fail-on` gates `document` trips.
    func gates(_ document: ReportDocument) -> [String] {
        let totals = document.totals
        var failures: [String] = []
        // A runs file with no clipkit line is a shard whose results are missing and a run that
        // reported nothing done: without it in both gates an empty file (a step that failed
        // before printing) showed green.
        let silent = document.runs.filesWithoutLines.count
        let silentText = silent > 0 ? ["\(silent) runs files without any clipkit --json line"] : []
        let failed = (totals.failed > 0 ? ["\(totals.failed) inputs failed"] : []) + silentText
        if options.failOn.contains(.failed) && !failed.isEmpty { failures.append(failed.joined(separator: ", ")) }
        if options.failOn.contains(.budget) && totals.overBudget > 0 { failures.append("\(totals.overBudget) outputs over budget") }
        let visual = totals.changes[ClipChange.Kind.visual.rawValue] ?? 0
        if options.failOn.contains(.visual) && visual > 0 { failures.append("\(visual) clips changed visually") }
        if options.failOn.contains(.warnings) && totals.warnings > 0 { failures.append("\(totals.warnings) warnings") }
        let count = document.runs.shardsMissing.count + document.runs.shardsDuplicated.count
        // Said once when both gates name the silent files.
        let saidSilent = silentText.first.map { text in failures.contains { $0.contains(text) } } ?? false
        let shards = (count > 0 ? ["\(count) shards missing or duplicated"] : []) + (saidSilent ? [] : silentText)
        if options.failOn.contains(.shards) && !shards.isEmpty { failures.append(shards.joined(separator: ", ")) }
        return failures
    }

    private func write(_ text: String, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8)) else {
            throw ClipKitError.outputFailed(path: url.path, reason: String(cString: strerror(errno)))
        }
    }

    /// Copies the outputs the builder marked for `media/` (directories: their regular files).
    private func copyMedia(_ clips: [ReportClip], into directory: URL) throws {
        let media = directory.appendingPathComponent("media")
        for output in clips.flatMap(\.outputs) {
            guard let name = output.copy, let source = output.source else { continue }
            try options.limits.checkDeadline(source.path)
            try ReportStaging.makeDirectory(media)
            let destination = directory.appendingPathComponent(name)
            if output.kind == .storyboard || output.kind == .frames {
                try ReportStaging.makeDirectory(destination)
                for file in ReportStaging.files(under: source) ?? [] where !file.contains("/") {
                    try copyFile(source.appendingPathComponent(file), to: destination.appendingPathComponent(file))
                }
            } else {
                try copyFile(source, to: destination)
            }
        }
    }

    /// Copies by the source's bytes (its name may not be UTF-8; copies get ASCII names).
    private func copyFile(_ source: URL, to destination: URL) throws {
        var failure: ClipKitError {
            .outputFailed(path: source.path, reason: "cannot copy into the report: \(String(cString: strerror(errno)))")
        }
        // A regular file only, and no more than its size when opened: an output swapped for a
        // FIFO, or a file whose reads block, cannot hold the report.
        guard let (input, size) = FileSystemPath.openRegularFile(source.path),
              FileManager.default.createFile(atPath: destination.path, contents: nil),
              let output = FileHandle(forWritingAtPath: destination.path) else { throw failure }
        defer { try? output.close() }
        var remaining = size
        while remaining > 0 {
            try options.limits.checkDeadline(source.path)
            let chunk: Data
            do { chunk = try input.read(upToCount: min(remaining, 1 << 20)) ?? Data() } catch { throw failure }
            if chunk.isEmpty { break }
            remaining -= chunk.count
            do { try output.write(contentsOf: chunk) } catch { throw failure }
        }
    }
}
