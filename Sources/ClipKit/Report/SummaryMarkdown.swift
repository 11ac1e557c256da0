// summary.md: a counts line, a table of problems and changes, the rest in <details>; capped, every name escaped, images only from --link-base.
import Foundation

/// For `$GITHUB_STEP_SUMMARY` (1 MiB cap) or a PR comment: never a `data:` image, and a fixed
/// marker first so a workflow can find and update its one comment.
enum SummaryMarkdown {
    static let marker = "<!-- clipkit-report -->"

    static func render(_ report: ReportDocument, options: ReportOptions) -> String {
        let m = ReportEscaping.markdown
        var head = "\(marker)\n## clipkit report\n\n\(m(report.countsLine))\n\n"
        for note in report.runNotes { head += "- \(m(note))\n" }
        if !report.runNotes.isEmpty { head += "\n" }
        var rows: [String] = []
        let problems = report.problems
        for problem in problems { rows.append("| \(link(problem.clip, options)) | \(problem.kind) | \(m(problem.text)) |") }
        // A clip in the table above (a warning, a budget) is not listed again among the others.
        let listed = Set(problems.map(\.clip.id))
        for clip in report.clips {
            if let change = clip.change, change.kind != .identical, change.kind != .visual {
                rows.append("| \(link(clip, options)) | \(change.kind.rawValue) | \(image(clip, options)) |")
            }
        }
        var rest: [String] = []
        for clip in report.clips where clip.status != "error" && !listed.contains(clip.id) && !(clip.change.map { $0.kind != .identical } ?? false) {
            rest.append("| \(link(clip, options)) | \(clip.status) | \(ReportPage.bytes(clip.bytes)) |")
        }
        let limit = max(options.markdownMax, 512)
        var out = head
        let tableHead = "| Clip | Kind | Details |\n|---|---|---|\n"
        let restHead = "<details><summary>Other clips (\(rest.count))</summary>\n\n| Clip | Status | Bytes |\n|---|---|---|\n"
        let restTail = "\n</details>\n"
        // Room kept for the closing lines and a "N more" note.
        let reserve = restTail.utf8.count + 120
        var cut = 0
        if !rows.isEmpty { out += tableHead }
        for (index, row) in rows.enumerated() {
            if out.utf8.count + row.utf8.count + 1 + reserve > limit { cut += rows.count - index; break }
            out += row + "\n"
        }
        if !rest.isEmpty && cut == 0 && out.utf8.count + restHead.utf8.count + reserve <= limit {
            out += "\n" + restHead
            for (index, row) in rest.enumerated() {
                if out.utf8.count + row.utf8.count + 1 + reserve > limit { cut += rest.count - index; break }
                out += row + "\n"
            }
            out += restTail
        } else if !rest.isEmpty {
            cut += rest.count
        }
        if cut > 0 { out += "\n\(cut) more in the report.\n" }
        return out
    }

    private static func link(_ clip: ReportClip, _ options: ReportOptions) -> String {
        let name = ReportEscaping.markdown(clip.input)
        guard let base = options.linkBase else { return name }
        return "[\(name)](\(safeURL(base.hasSuffix("/") ? base : base + "/"))index.html#\(clip.id))"
    }

    /// `--link-base` as the user gave it, with what would end a Markdown link or an HTML attribute percent-encoded.
    static func safeURL(_ url: String) -> String {
        var out = ""
        for scalar in url.unicodeScalars {
            switch scalar {
            case " ", "(", ")", "<", ">", "\"", "'", "`", "|", "[", "]", "\\": out += String(format: "%%%02X", scalar.value)
            default: if scalar.value < 0x20 || scalar.value == 0x7F { continue } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    private static func image(_ clip: ReportClip, _ options: ReportOptions) -> String {
        guard let base = options.linkBase, let poster = clip.posterHref, !poster.hasPrefix("../") else { return "" }
        return "<img src=\"\(safeURL((base.hasSuffix("/") ? base : base + "/") + poster))\" width=\"160\" alt=\"\">"
    }
}
