// index.html: the header with totals, problems first, filter chips, a card per clip, then a section per clip; static first, no inline script or style.
import Foundation

/// The page reads fully without JavaScript (posters, tables, links); report.js only adds
/// hover previews, the scrubber, filters and keys. Nothing inline: it works under
/// `Content-Security-Policy: default-src 'self'` (the cue blocks are JSON data, never run).
struct ReportPage {
    let report: ReportDocument

    /// The head's generator line: how a `--single-file` page clipkit wrote is known again.
    static let generatorMark = "<meta name=\"generator\" content=\"clipkit report\">"

    func html() -> String {
        var out = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(Self.generatorMark)
        <title>clipkit report: \(report.clips.count) clips</title>
        <link rel="icon" href="report.svg" type="image/svg+xml">
        <link rel="stylesheet" href="report.css">
        <script src="report.js" defer></script>
        </head>
        <body>

        """
        out += header() + problems() + filters() + cards()
        for clip in report.clips { out += ClipSection(clip: clip).html() }
        out += """
        <div id="help" class="help" hidden role="dialog" aria-label="Keyboard shortcuts">
        <h2>Keys</h2><dl><dt>/</dt><dd>filter by name</dd><dt>j / k</dt><dd>next / previous clip</dd>
        <dt>&#8592; &#8594;</dt><dd>move a focused storyboard scrubber</dd><dt>?</dt><dd>this help</dd></dl></div>
        <footer><p>Written by clipkit report (report.json has the same data, summary.md the summary).</p></footer>
        </body>
        </html>

        """
        return out
    }

    private func header() -> String {
        let totals = report.totals
        var rows = "<tr><th scope=\"row\">Clips</th><td>\(totals.clips)</td></tr>\n"
        for (kind, count) in totals.outputsPerKind {
            rows += "<tr><th scope=\"row\">\(kind)</th><td>\(count) file\(count == 1 ? "" : "s"), \(Self.bytes(totals.bytesPerKind[kind] ?? 0))</td></tr>\n"
        }
        rows += "<tr><th scope=\"row\">Failed</th><td>\(totals.failed)</td></tr>\n<tr><th scope=\"row\">Warnings</th><td>\(totals.warnings)</td></tr>\n"
        let shards = report.runs.shardsSeen.isEmpty ? "none" : report.runs.shardsSeen.map(ReportEscaping.html).joined(separator: ", ")
        rows += "<tr><th scope=\"row\">Shards</th><td>\(shards)</td></tr>\n"
        if let baseline = report.baselineName {
            rows += "<tr><th scope=\"row\">Baseline</th><td>\(ReportEscaping.html(baseline))</td></tr>\n"
        }
        return """
        <header class="top"><h1>clipkit report</h1>
        <p class="counts" id="counts">\(ReportEscaping.html(report.countsLine))</p>
        <table class="totals">\n\(rows)</table>\n\(filmstripNote())</header>

        """
    }

    /// What the filmstrips' pixel budget covers, in the page's words.
    static let filmstripBudgetText = "the report's budget for GIF filmstrips (\(GIFFilmstrip.pixelBudget / 1_000_000) million decoded pixels, spent in input order)"

    /// Which clips' GIF filmstrips list delays without pictures because the budget ran out.
    private func filmstripNote() -> String {
        let skipped = report.clips.filter { $0.gifFrames?.skippedForBudget == true }
        guard !skipped.isEmpty else { return "" }
        let names = report.shownNames
        let links = skipped.map { "<a href=\"#\($0.id)\">\(ReportEscaping.html(names[$0.input] ?? $0.input))</a>" }.joined(separator: ", ")
        let count = skipped.count == 1 ? "1 clip has" : "\(skipped.count) clips have"
        return "<details class=\"note\" id=\"filmstrip-budget\"><summary>\(count) GIF frames without pictures: "
            + "\(Self.filmstripBudgetText) ran out</summary><p>\(links)</p></details>\n"
    }

    private func problems() -> String {
        let problems = report.problems
        let notes = report.runNotes.map { "<li>\(ReportEscaping.html($0))</li>" }.joined(separator: "\n")
        let noteList = notes.isEmpty ? "" : "<ul class=\"notes\">\n\(notes)\n</ul>\n"
        guard !problems.isEmpty else {
            return "<section id=\"problems\" class=\"problems\(noteList.isEmpty ? " none" : "")\"><h2>Problems</h2>\n\(noteList)<p>No failed input, budget breach or visual change.</p></section>\n"
        }
        var out = "<section id=\"problems\" class=\"problems\"><h2>Problems (\(problems.count))</h2>\n\(noteList)<table><thead><tr><th>Clip</th><th>Problem</th></tr></thead><tbody>\n"
        for problem in problems {
            out += "<tr class=\"\(problem.kind)\"><td><a href=\"#\(problem.clip.id)\">\(ReportEscaping.html(problem.clip.input))</a></td><td>\(ReportEscaping.html(problem.text))</td></tr>\n"
        }
        return out + "</tbody></table></section>\n"
    }

    private func filters() -> String {
        var chips = ""
        func chip(_ group: String, _ value: String, _ count: Int) {
            chips += "<button type=\"button\" class=\"chip\" data-group=\"\(group)\" data-value=\"\(ReportEscaping.html(value))\" aria-pressed=\"false\">\(ReportEscaping.html(value)) <span class=\"n\">\(count)</span></button>\n"
        }
        for (group, values) in report.facets {
            chips += "<span class=\"group\">\(group)</span>\n"
            for (value, count) in values { chip(group, value, count) }
        }
        return """
        <nav class="filters" id="filters" hidden aria-label="Filters">
        <label for="filter-text">Filter</label> <input type="search" id="filter-text" placeholder="name (press /)">
        \(chips)<button type="button" id="pause-all" aria-pressed="false">Pause all</button>
        <span id="shown" aria-live="polite"></span>
        </nav>

        """
    }

    private func cards() -> String {
        // Filter data for a group is written only when the page has chips for it.
        let groups = Set(report.facets.map(\.0))
        let names = report.shownNames
        var out = "<section id=\"cards\" class=\"cards\" aria-label=\"Clips\">\n"
        for clip in report.clips {
            // The path under the inputs' shared directory (two hd_720p.mp4 in two folders read
            // apart); the card links to the section, whose heading has the whole path.
            let name = ReportEscaping.html(names[clip.input] ?? clip.input)
            let marks = (clip.warnings.isEmpty ? "" : " warned") + (clip.isOverBudget ? " over-budget" : "")
            out += "<article class=\"card \(clip.status)\(marks)\" id=\"card-\(clip.id.dropFirst(5))\" \(Self.dataAttributes(clip, groups: groups))>\n"
            out += "<a href=\"#\(clip.id)\" class=\"preview\">"
            if let poster = clip.posterHref {
                let animation = clip.animation?.href.map { " data-anim=\"\($0)\"" } ?? ""
                out += "<img class=\"poster\" src=\"\(poster)\"\(animation) loading=\"lazy\" alt=\"\(name)\">"
            } else {
                out += "<span class=\"noposter\">no preview</span>"
            }
            out += "</a>\n<h3><a href=\"#\(clip.id)\">\(name)</a></h3>\n<p class=\"meta\">"
            out += [clip.status, clip.durationMs.map { Self.duration($0) }, clip.bytes > 0 ? Self.bytes(clip.bytes) : nil,
                    clip.change.map { $0.kind.rawValue }].compactMap { $0 }.map(ReportEscaping.html).joined(separator: " · ")
            out += "</p>\n"
            // Said in words, not by colour alone.
            var flags: [String] = []
            if !clip.warnings.isEmpty { flags.append("<span class=\"flag warned\">\(clip.warnings.count) warning\(clip.warnings.count == 1 ? "" : "s")</span>") }
            let over = clip.outputs.filter(\.isOverBudget).count
            if over > 0 { flags.append("<span class=\"flag over-budget\">\(over) over budget</span>") }
            if !flags.isEmpty { out += "<p class=\"flags\">\(flags.joined(separator: " "))</p>\n" }
            out += "</article>\n"
        }
        return out + "</section>\n"
    }

    /// What the filters match on, as data attributes (values escaped).
    static func dataAttributes(_ clip: ReportClip, groups: Set<String>) -> String {
        var out = "data-status=\"\(clip.status)\" data-format=\"\(clip.formats.joined(separator: " "))\""
        if groups.contains("warnings") { out += " data-warnings=\"\(clip.warnings.isEmpty ? "none" : "warned")\"" }
        if groups.contains("change") { out += " data-change=\"\(clip.change?.kind.rawValue ?? "none")\"" }
        if groups.contains("budget") { out += " data-budget=\"\(clip.budgetState)\"" }
        return out
    }

    static func baseName(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.isEmpty ? path : name
    }

    /// A size for the page: decimal units (`bytes`), the exact count in its title.
    static func size(_ count: Int) -> String { "<span class=\"size\" title=\"\(count) bytes\">\(bytes(count))</span>" }

    /// A signed size change (`+1.2 KB`), the exact count in its title.
    static func sizeChange(_ delta: Int) -> String {
        "<span class=\"size\" title=\"\(delta >= 0 ? "+" : "")\(delta) bytes\">\(delta >= 0 ? "+" : "-")\(bytes(abs(delta)))</span>"
    }

    /// Decimal units, one decimal: 241.1 KB.
    static func bytes(_ count: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(count) B" : String(format: "%.1f ", value) + units[unit]
    }

    static func duration(_ milliseconds: Int) -> String { String(format: "%.2f s", Double(milliseconds) / 1000) }
}
