// `clipkit report`: the --json lines of clipkit runs to a page a reviewer opens, report.json and a Markdown summary.
import ArgumentParser
import ClipKit
import Foundation

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report, report.json and summary.md from the --json lines of clipkit runs.",
        discussion: """
        Reads the lines `clipkit gif|thumb|storyboard|explode|info --json` printed (one file per \
        CI shard is fine: lines are merged by input, a missing or repeated shard is reported) \
        and the outputs they name. DIR appears whole or not at all: index.html, report.css, \
        report.js (no inline script or style: works under Content-Security-Policy \
        default-src 'self', from file:// and over http), report.json (the next run's \
        --baseline), summary.md (for $GITHUB_STEP_SUMMARY) and media/. Outputs under DIR's \
        parent are linked relative, others copied into media/ (--copy: all). An existing DIR \
        is replaced only when it is a report clipkit wrote.

        Exit 0 when the report was written, 1 when a --fail-on gate tripped (after writing) \
        or it could not be written, 2 on bad usage. Gates: failed (an input failed), budget \
        (an output over its --budget), visual (a visual change from --baseline), warnings (a \
        clip's warning or a note about the runs), shards (a shard I/N missing or read from two \
        files). A runs file without any clipkit --json line (empty: its step failed before \
        printing) is a note and trips failed and shards too: its shard's results are missing \
        and nothing was reported done.

        Examples:
          clipkit gif clips/ -o out/gifs --json > run.jsonl
          clipkit report run.jsonl -o out/report --budget gif=2MB --fail-on failed,budget
          clipkit report shard-*.jsonl -o report --baseline base-report/ --fail-on visual
        """
    )

    @Argument(help: "Files of --json lines (one per shard, say).")
    var runs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The report directory.", valueName: "dir"))
    var output: String

    @Option(help: ArgumentHelp("Largest bytes per output kind, e.g. gif=2MB,webp=500KB (kinds: gif, webp, mp4, poster, storyboard, frames).", valueName: "kind=size,..."))
    var budget: String?

    @Option(help: ArgumentHelp("Exit 1 after writing when any of these happened: failed, budget, visual, warnings, shards.", valueName: "gates"))
    var failOn: String?

    @Option(help: ArgumentHelp("A baseline report (its directory or report.json) to classify each clip's change against.", valueName: "dir|file"))
    var baseline: String?

    @Flag(help: "Copy every output into DIR/media (default: only those outside DIR's parent directory).")
    var copy = false

    @Option(help: ArgumentHelp("Where the report will be published: summary.md links clips and images under it.", valueName: "url"))
    var linkBase: String?

    @Option(help: ArgumentHelp("Most bytes of summary.md (the rest: 'N more in the report').", valueName: "size"))
    var markdownMax: String = "1000000"

    @Option(help: ArgumentHelp("Also write the report as one HTML file (style, script and media inlined; for an artifact uploaded as one file). An existing file is replaced only when clipkit report wrote it.", valueName: "file"))
    var singleFile: String?

    @Option(help: ArgumentHelp("Most media bytes --single-file inlines (each file once, however many places show it); beyond that only the posters, while they fit; the rest stays a link.", valueName: "size"))
    var maxInline: String = "20MB"

    func run() throws {
        var options = ReportOptions()
        do {
            if let budget { options.budgets = try ReportOptions.budgets(budget) { try ByteSize.parse($0, option: "--budget") } }
            if let failOn { options.failOn = try ReportOptions.gates(failOn) }
            options.markdownMax = try ByteSize.parse(markdownMax, option: "--markdown-max")
            options.maxInline = try ByteSize.parse(maxInline, option: "--max-inline")
        } catch {
            throw ValidationError("\(error)")
        }
        options.copyMedia = copy
        options.singleFile = singleFile.map { URL(fileURLWithPath: $0) }
        options.linkBase = linkBase
        options.baseline = baseline.map { URL(fileURLWithPath: $0) }
        do {
            let runs = try RunSet.read(self.runs.map { URL(fileURLWithPath: $0) })
            let result = try ReportWriter(options: options).write(runs, to: URL(fileURLWithPath: output), inputs: self.runs.map { URL(fileURLWithPath: $0) })
            for note in result.document.runNotes { InputRunner.printError("report: \(note)") }
            print(result.document.countsLine)
            if !result.gateFailures.isEmpty {
                InputRunner.printError("report: --fail-on: " + result.gateFailures.joined(separator: "; "))
                throw ExitCode.failure
            }
        } catch let error as ClipKitError {
            if case .invalidOption = error { throw ValidationError(error.description) }
            InputRunner.printError(error.description)
            throw ExitCode.failure
        }
    }
}
