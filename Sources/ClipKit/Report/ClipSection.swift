// One clip's section of index.html: every format side by side, outputs beside their JSON lines, storyboard scrubber, picks, filmstrip, info, change.
import Foundation

struct ClipSection {
    let clip: ReportClip

    private func e(_ text: String) -> String { ReportEscaping.html(text) }

    func html() -> String {
        // No tabindex: report.js makes sections focusable for j/k (only it needs them so).
        var out = "<section class=\"clip \(clip.status)\" id=\"\(clip.id)\">\n"
        out += "<h2><a href=\"#\(clip.id)\">#</a> \(e(clip.input))</h2>\n"
        // Each failed line's error, with the runs file and line it came from: a clip whose gif,
        // thumb and storyboard all failed shows three.
        for line in clip.lines where line.status == "error" {
            out += "<p class=\"error\">\(e(line.error ?? "failed")) <span class=\"from\">(\(e(ReportPage.baseName(line.source))):\(line.lineNumber))</span></p>\n"
        }
        for warning in clip.warnings { out += "<p class=\"warning\">\(e(warning))</p>\n" }
        if let change = clip.change { out += ChangeSection(clip: clip, change: change).html() }
        out += media() + outputsTable() + storyboard() + picks() + filmstrip() + info()
        return out + "</section>\n"
    }

    /// The animated formats and posters side by side; `<picture>` shows the poster instead when
    /// the reader asks for reduced motion, with no script (report.js's pause reads it there too).
    /// Alt texts are short: the section's heading names the clip.
    private func media() -> String {
        let shown = clip.outputs.filter { [.gif, .webp, .mp4, .poster].contains($0.kind) && $0.href != nil }
        guard !shown.isEmpty else { return "" }
        let poster = clip.outputs.first { $0.kind == .poster && $0.href != nil }?.href
        var out = "<div class=\"media\">\n"
        for output in shown {
            let href = output.href!
            out += "<figure>"
            switch output.kind {
            case .mp4:
                out += "<video src=\"\(href)\" controls muted loop playsinline preload=\"metadata\"\(poster.map { " poster=\"\($0)\"" } ?? "")></video>"
            case .gif, .webp:
                out += "<picture>"
                if let poster { out += "<source srcset=\"\(poster)\" media=\"(prefers-reduced-motion: reduce)\">" }
                out += "<img class=\"anim\" src=\"\(href)\" loading=\"lazy\" alt=\"\(output.kind.rawValue)\"></picture>"
            default:
                out += "<img src=\"\(href)\" loading=\"lazy\" alt=\"poster\">"
            }
            out += "<figcaption>\(output.kind.rawValue) · \(ReportPage.size(output.bytes ?? 0))</figcaption></figure>\n"
        }
        return out + "</div>\n"
    }

    /// One row per output with its JSON line beside it (a line naming several outputs spans
    /// their rows; a failed line has a row of its own): settings, timings and measures are read
    /// there, once. The `info` line is the info table below. `</td>`, `</th>` and `</tr>` are
    /// left out, as HTML allows: this table is on every clip, and the page is meant to stay small.
    private func outputsTable() -> String {
        let lines = clip.lines.filter { !$0.isInfo }
        guard !lines.isEmpty else { return "" }
        let measuredKeys = ["ssim", "ssimulacra2"]
        let hasBudget = clip.outputs.contains { $0.budget != nil }
        let hasMeasured = lines.contains { line in measuredKeys.contains { line.text($0) != nil } }
        var out = "<table class=\"outputs\"><tr><th>Kind<th>File<th>Bytes"
        out += (hasBudget ? "<th>Budget" : "") + (hasMeasured ? "<th>Measured" : "") + "<th>JSON line\n"
        var outputs = clip.outputs[...]
        for line in lines {
            let rows = outputs.prefix { $0.line == line }
            outputs = outputs.dropFirst(rows.count)
            let span = rows.count > 1 ? " rowspan=\"\(rows.count)\"" : ""
            let lineCells = (hasMeasured ? "<td\(span)>\(measuredKeys.compactMap { key in line.text(key).map { "\(key) \(e($0))" } }.joined(separator: ", "))" : "")
                + "<td\(span)><code>\(ReportEscaping.text(line.shown))</code>"
            if rows.isEmpty {
                out += "<tr><td>\(e(line.status))<td><td>\(hasBudget ? "<td>" : "")\(lineCells)\n"
            }
            for (index, output) in rows.enumerated() {
                let name = e(ReportPage.baseName(output.path))
                // A directory is linked by the file that describes it: static hosts (GitHub
                // Pages, S3) answer 404 for a directory without an index.
                let file = output.kind == .storyboard ? "/storyboard.vtt" : output.kind == .frames ? "/frames.json" : ""
                let link = output.href.map { "<a href=\"\($0)\(file)\">\(name)</a>" } ?? "\(name) <em>(missing)</em>"
                // Sizes to read (1.4 MB), the exact bytes in their titles.
                var bytes = output.bytes.map(ReportPage.size) ?? ""
                if let before = clip.change?.baselineBytes[output.kind.rawValue], let now = output.bytes {
                    bytes += " (\(ReportPage.sizeChange(now - before)))"
                }
                out += "<tr\(output.isOverBudget ? " class=\"over\"" : "")><td>\(output.kind.rawValue)<td>\(link)<td>\(bytes)"
                if hasBudget {
                    out += "<td>\(output.budget.map { "\(ReportPage.size($0))\(output.isOverBudget ? " <strong class=\"over\">over</strong>" : "")" } ?? "")"
                }
                out += (index == 0 ? lineCells : "") + "\n"
            }
        }
        return out + "</table>\n"
    }

    /// The sheets as images (static); report.js turns them into a scrubber (slider role and all)
    /// from the cues block that follows them, whose tiles name sheets by their order here (and
    /// which gives each sheet's size, so the tile can be scaled before a sheet is loaded).
    private func storyboard() -> String {
        guard let manifest = clip.storyboard, let base = clip.storyboardHref else { return "" }
        let tiles = manifest.tiles.map { "[\($0.startMs),\($0.endMs),\($0.sheet),\($0.x),\($0.y)]" }.joined(separator: ",")
        let sheets = manifest.sheets.map { "[\($0.width),\($0.height)]" }.joined(separator: ",")
        let cues = "{\"duration_ms\":\(manifest.durationMs),\"tile\":[\(manifest.tile.width),\(manifest.tile.height)],\"sheets\":[\(sheets)],\"tiles\":[\(tiles)]}"
        // In <noscript>: with script, nothing fetches them until the scrubber asks (a hidden lazy
        // image is still fetched within the browser's own distance of the viewport, 1250 px and
        // more in Chromium); report.js reads their addresses from the element's text.
        var out = "<h3>Storyboard</h3>\n<div class=\"scrubber\">\n<noscript>\n"
        for (index, sheet) in manifest.sheets.enumerated() {
            out += "<img src=\"\(base)/\(ReportEscaping.urlPath(sheet.file))\" loading=\"lazy\" alt=\"sheet \(index + 1)\">\n"
        }
        out += "</noscript>\n</div>\n<script type=\"application/json\" class=\"cues\">\(ReportEscaping.jsonForScript(cues))</script>\n"
        return out
    }

    private func picks() -> String {
        let picked = clip.lines.compactMap { $0.text("picks") }.filter { $0 != "[]" }
        guard !picked.isEmpty else { return "" }
        return "<details class=\"picks\"><summary>Picked posters and their scores</summary><pre>\(picked.map(e).joined(separator: "\n"))</pre></details>\n"
    }

    /// The exploded frames with their delays (the first 60), else the GIF's (`GIFFilmstrip`).
    private func filmstrip() -> String {
        guard let frames = clip.frames, let base = clip.framesHref else { return clip.gifFrames.map(gifFilmstrip) ?? "" }
        var out = "<details class=\"filmstrip\"><summary>Frames (\(frames.frames.count))</summary><ol>\n"
        for frame in frames.frames.prefix(60) {
            out += "<li><img src=\"\(base)/\(ReportEscaping.urlPath(frame.file))\" loading=\"lazy\" alt=\"\(e(frame.file))\"><span>\(frame.delayMs) ms</span></li>\n"
        }
        return out + "</ol></details>\n"
    }

    /// The sheet of the frames shown with each one's number and delay under it (end tags left
    /// out where HTML allows: this is on every clip), and every delay in runs below.
    private func gifFilmstrip(_ strip: GIFFilmstrip) -> String {
        var out = "<details class=\"filmstrip\"><summary>GIF frames (\(strip.delaysMs.count))</summary>\n"
        if strip.skippedForBudget {
            out += "<p class=\"note\">No pictures: \(ReportPage.filmstripBudgetText) was spent before this clip.</p>\n"
        }
        if let sheet = strip.sheetHref {
            out += "<figure class=\"strip\"><img src=\"\(sheet)\" loading=\"lazy\" alt=\"frames \(strip.shown.map { "\($0 + 1)" }.joined(separator: ", "))\"><ol>"
            // Each frame's delay under it only when they differ (the line below has them all).
            let same = Set(strip.shown.map { strip.delaysMs[$0] }).count == 1
            for index in strip.shown { out += "<li>#\(index + 1)" + (same ? "" : " \(strip.delaysMs[index]) ms") }
            out += "</ol></figure>\n"
        }
        return out + "<p>Delays: \(strip.delaySummary)</p></details>\n"
    }

    private func info() -> String {
        guard let info = clip.info else { return "" }
        let rows = info.fields.filter { !["input", "schema", "status", "error", "shard"].contains($0.key) }
            .map { "<tr><th scope=\"row\">\(e($0.key))</th><td>\(e($0.text))</td></tr>" }.joined(separator: "\n")
        return "<details class=\"info\"><summary>info</summary><table>\n\(rows)\n</table></details>\n"
    }
}
