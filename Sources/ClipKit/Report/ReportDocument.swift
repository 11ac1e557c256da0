// The whole report as values: clips, totals, problems and filter facets, from which every file (HTML, JSON, Markdown) is rendered.
import Foundation

/// Everything a report shows, computed once; the renderers only format it, so index.html,
/// report.json and summary.md always agree.
public struct ReportDocument: Sendable {
    public var runs: RunSet
    public var clips: [ReportClip]
    /// Clips the baseline had and this run has not (change class `removed`).
    public var removed: [String]
    public var baselineName: String?

    public struct Totals: Sendable {
        public var clips = 0
        public var failed = 0
        public var warnings = 0
        /// Sorted by kind.
        public var outputsPerKind: [(String, Int)] = []
        public var bytesPerKind: [String: Int] = [:]
        /// Outputs over their budget (the `budget` gate counts these).
        public var overBudget = 0
        /// Clips with an output over its budget (the budget chip counts these).
        public var clipsOverBudget = 0
        public var changes: [String: Int] = [:]
    }

    public struct Problem: Sendable {
        /// `failed`, `warning`, `budget`, `visual`, `shard`.
        public var kind: String
        public var clip: ReportClip
        public var text: String
    }

    public var totals: Totals {
        var totals = Totals()
        totals.clips = clips.count
        totals.failed = clips.filter { $0.status == "error" }.count
        totals.warnings = clips.reduce(0) { $0 + $1.warnings.count } + runs.warnings.count
            + runs.shardsMissing.count + runs.shardsDuplicated.count
        var counts: [String: Int] = [:]
        for output in clips.flatMap(\.outputs) where output.source != nil {
            counts[output.kind.rawValue, default: 0] += 1
            totals.bytesPerKind[output.kind.rawValue, default: 0] += output.bytes ?? 0
            if output.isOverBudget { totals.overBudget += 1 }
        }
        totals.outputsPerKind = counts.keys.sorted().map { ($0, counts[$0]!) }
        totals.clipsOverBudget = clips.filter(\.isOverBudget).count
        for clip in clips { if let change = clip.change { totals.changes[change.kind.rawValue, default: 0] += 1 } }
        if !removed.isEmpty { totals.changes["removed", default: 0] += removed.count }
        return totals
    }

    /// Failed inputs first, then budget breaches, visual changes and warnings, each in input order.
    public var problems: [Problem] {
        var failed: [Problem] = [], budget: [Problem] = [], visual: [Problem] = [], warnings: [Problem] = []
        for clip in clips {
            // One row per error text: gif, thumb and storyboard failing alike say it once here,
            // with how many lines did (the clip's section shows each line).
            var errors: [(text: String, lines: Int)] = []
            for error in clip.errors {
                if let index = errors.firstIndex(where: { $0.text == error }) { errors[index].lines += 1 } else { errors.append((error, 1)) }
            }
            failed += errors.map { Problem(kind: "failed", clip: clip, text: $0.lines > 1 ? "\($0.text) (\($0.lines) lines)" : $0.text) }
            for output in clip.outputs where output.isOverBudget {
                budget.append(Problem(kind: "budget", clip: clip, text: Self.budgetText(output)))
            }
            if let change = clip.change, change.kind == .visual {
                let ssim = change.worstSSIM.map { String(format: " (lowest SSIM %.4f)", $0) } ?? ""
                visual.append(Problem(kind: "visual", clip: clip, text: "visual change\(ssim)"))
            }
            warnings += clip.warnings.map { Problem(kind: "warning", clip: clip, text: $0) }
        }
        return failed + budget + visual + warnings
    }

    /// `gif 1.4 MB, budget 1.0 MB (1412345 > 1000000 bytes)`: sizes to read, then the exact bytes.
    static func budgetText(_ output: ReportOutput) -> String {
        let bytes = output.bytes ?? 0, budget = output.budget ?? 0
        return "\(output.kind.rawValue) \(ReportPage.bytes(bytes)), budget \(ReportPage.bytes(budget)) (\(bytes) > \(budget) bytes)"
    }

    /// Each clip's input as its card shows it: its path under the directory every input shares
    /// (`ChangeClassifier.relativeNames`, as the baseline matches them), so `a/hd_720p.mp4` and
    /// `b/hd_720p.mp4` read apart; an input given relative is shown as given.
    var shownNames: [String: String] { ChangeClassifier.relativeNames(clips.map(\.input)) }

    /// Notes about the runs themselves (shards, unreadable lines), for the header and summary.
    public var runNotes: [String] {
        runs.shardsMissing.map { "shard \($0) missing" } + runs.shardsDuplicated.map { "shard \($0) read from more than one file" }
            + runs.warnings + removed.map { "removed since the baseline: \($0)" }
    }

    /// One line: `12 clips · 10 ok · 2 failed · gif 12 (3.1 MB) · 1 clip over budget (2 outputs) · 2 visual`.
    public var countsLine: String {
        let totals = totals
        var parts = ["\(totals.clips) clips", "\(totals.clips - totals.failed) ok", "\(totals.failed) failed"]
        parts += totals.outputsPerKind.map { "\($0.0) \($0.1) (\(ReportPage.bytes(totals.bytesPerKind[$0.0] ?? 0)))" }
        if totals.overBudget > 0 {
            // Clips, as the budget chip counts them, and the outputs the `budget` gate counts.
            let clips = totals.clipsOverBudget, outputs = totals.overBudget
            parts.append("\(clips) clip\(clips == 1 ? "" : "s") over budget (\(outputs) output\(outputs == 1 ? "" : "s"))")
        }
        parts += totals.changes.keys.sorted().map { "\(totals.changes[$0]!) \($0)" }
        if !runs.shardsSeen.isEmpty { parts.append("shards \(runs.shardsSeen.count)") }
        if !runNotes.isEmpty { parts.append("\(runNotes.count) notes") }
        return parts.joined(separator: " · ")
    }

    /// The filter chips: group name and (value, count), sorted.
    var facets: [(String, [(String, Int)])] {
        func count(_ values: [String]) -> [(String, Int)] {
            var counts: [String: Int] = [:]
            for value in values { counts[value, default: 0] += 1 }
            return counts.keys.sorted().map { ($0, counts[$0]!) }
        }
        var facets = [("status", count(clips.map(\.status)))]
        // Clips whose lines carry warnings: the chip counts clips, as the others do.
        if clips.contains(where: { !$0.warnings.isEmpty }) { facets.append(("warnings", count(clips.filter { !$0.warnings.isEmpty }.map { _ in "warned" }))) }
        facets.append(("format", count(clips.flatMap(\.formats))))
        if clips.contains(where: { $0.change != nil }) { facets.append(("change", count(clips.map { $0.change?.kind.rawValue ?? "none" }))) }
        if clips.contains(where: \.isOverBudget) { facets.append(("budget", count(clips.map(\.budgetState)))) }
        return facets
    }
}
