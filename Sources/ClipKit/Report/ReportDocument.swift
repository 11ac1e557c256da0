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
        public var overBudget = 0
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
        for clip in clips { if let change = clip.change { totals.changes[change.kind.rawValue, default: 0] += 1 } }
        if !removed.isEmpty { totals.changes["removed", default: 0] += removed.count }
        return totals
    }

    /// Failed inputs first, then budget breaches, visual changes and warnings, each in input order.
    public var problems: [Problem] {
        var failed: [Problem] = [], budget: [Problem] = [], visual: [Problem] = [], warnings: [Problem] = []
        for clip in clips {
            failed += clip.errors.map { Problem(kind: "failed", clip: clip, text: $0) }
            for output in clip.outputs where output.isOverBudget {
                budget.append(Problem(kind: "budget", clip: clip, text: "\(output.kind.rawValue) \(output.bytes ?? 0) bytes, budget \(output.budget ?? 0)"))
            }
            if let change = clip.change, change.kind == .visual {
                let ssim = change.worstSSIM.map { String(format: " (lowest SSIM %.4f)", $0) } ?? ""
                visual.append(Problem(kind: "visual", clip: clip, text: "visual change\(ssim)"))
            }
            warnings += clip.warnings.map { Problem(kind: "warning", clip: clip, text: $0) }
        }
        return failed + budget + visual + warnings
    }

    /// Notes about the runs themselves (shards, unreadable lines), for the header and summary.
    public var runNotes: [String] {
        runs.shardsMissing.map { "shard \($0) missing" } + runs.shardsDuplicated.map { "shard \($0) read from more than one file" }
            + runs.warnings + removed.map { "removed since the baseline: \($0)" }
    }

    /// One line: `12 clips · 10 ok · 2 failed · gif 12 (3.1 MB) · 1 over budget · 2 visual changes`.
    public var countsLine: String {
        let totals = totals
        var parts = ["\(totals.clips) clips", "\(totals.clips - totals.failed) ok", "\(totals.failed) failed"]
        parts += totals.outputsPerKind.map { "\($0.0) \($0.1) (\(ReportPage.bytes(totals.bytesPerKind[$0.0] ?? 0)))" }
        if totals.overBudget > 0 { parts.append("\(totals.overBudget) over budget") }
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
        var facets = [("status", count(clips.map(\.status))), ("format", count(clips.flatMap(\.formats)))]
        if clips.contains(where: { $0.change != nil }) { facets.append(("change", count(clips.map { $0.change?.kind.rawValue ?? "none" }))) }
        if clips.contains(where: \.isOverBudget) { facets.append(("budget", count(clips.map { $0.isOverBudget ? "over" : "within" }))) }
        return facets
    }
}
