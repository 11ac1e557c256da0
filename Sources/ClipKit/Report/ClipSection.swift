// One clip's section of index.html: every format side by side, storyboard scrubber, picks, filmstrip, info, change and the raw lines.
import Foundation

struct ClipSection {
    let clip: ReportClip

    private func e(_ text: String) -> String { ReportEscaping.html(text) }

    func html() -> String {
        var out = "<section class=\"clip \(clip.status)\" id=\"\(clip.id)\" tabindex=\"-1\">\n"
        out += "<h2><a href=\"#\(clip.id)\" class=\"anchor\">#</a> \(e(clip.input))</h2>\n"
        for error in clip.errors { out += "<p class=\"error\">\(e(error))</p>\n" }
        for warning in clip.warnings { out += "<p class=\"warning\">\(e(warning))</p>\n" }
        if let change = clip.change { out += ChangeSection(clip: clip, change: change).html() }
        out += media() + outputsTable() + storyboard() + picks() + filmstrip() + info() + rawLines()
        return out + "</section>\n"
    }

    /// The animated formats and posters side by side; `<picture>` shows the poster instead when
    /// the reader asks for reduced motion, with no script.
    private func media() -> String {
        let shown = clip.outputs.filter { [.gif, .webp, .mp4, .poster].contains($0.kind) && $0.href != nil }
        guard !shown.isEmpty else { return "" }
        let poster = clip.outputs.first { $0.kind == .poster && $0.href != nil }?.href
        var out = "<div class=\"media\">\n"
        for output in shown {
            let href = output.href!
            let caption = "\(output.kind.rawValue) · \(ReportPage.bytes(output.bytes ?? 0))"
            out += "<figure>"
            switch output.kind {
            case .mp4:
                out += "<video src=\"\(href)\" controls muted loop playsinline preload=\"metadata\"\(poster.map { " poster=\"\($0)\"" } ?? "")></video>"
            case .gif, .webp:
                out += "<picture>"
                if let poster { out += "<source srcset=\"\(poster)\" media=\"(prefers-reduced-motion: reduce)\">" }
                out += "<img class=\"anim\" src=\"\(href)\"\(poster.map { " data-poster=\"\($0)\"" } ?? "") loading=\"lazy\" alt=\"\(e(output.kind.rawValue + " of " + clip.input))\"></picture>"
            default:
                out += "<img class=\"still\" src=\"\(href)\" loading=\"lazy\" alt=\"\(e("poster of " + clip.input))\">"
            }
            out += "<figcaption>\(e(caption))</figcaption></figure>\n"
        }
        return out + "</div>\n"
    }

    private func outputsTable() -> String {
        guard !clip.outputs.isEmpty else { return "" }
        var out = "<table class=\"outputs\"><thead><tr><th>Kind</th><th>File</th><th>Bytes</th><th>Budget</th><th>Measured</th><th>Settings</th></tr></thead><tbody>\n"
        for output in clip.outputs {
            let link = output.href.map { "<a href=\"\($0)\">\(e(output.path))</a>" } ?? "\(e(output.path)) <em>(missing)</em>"
            var bytes = output.bytes.map { "\($0)" } ?? ""
            if let before = clip.change?.baselineBytes[output.kind.rawValue], let now = output.bytes {
                bytes += " (\(now - before >= 0 ? "+" : "")\(now - before))"
            }
            let budget = output.budget.map { "\($0)\(output.isOverBudget ? " <strong class=\"over\">over</strong>" : "")" } ?? ""
            let measured = ["ssim", "ssimulacra2", "duration_error_ms"].compactMap { key in output.line.text(key).map { "\(key) \(e($0))" } }
            let settings = output.line.text("settings") ?? ""
            out += "<tr\(output.isOverBudget ? " class=\"over\"" : "")><td>\(output.kind.rawValue)</td><td>\(link)</td><td>\(bytes)</td><td>\(budget)</td><td>\(measured.joined(separator: ", "))</td><td><code>\(e(settings))</code></td></tr>\n"
        }
        return out + "</tbody></table>\n"
    }

    /// The sheets as images (static); report.js turns them into a scrubber from the cues block.
    private func storyboard() -> String {
        guard let manifest = clip.storyboard, let base = clip.storyboardHref else { return "" }
        let sheets = manifest.sheets.map { base + "/" + ReportEscaping.urlPath($0.file) }
        let tiles = manifest.tiles.map { "[\($0.startMs),\($0.endMs),\($0.sheet),\($0.x),\($0.y)]" }.joined(separator: ",")
        let sheetList = sheets.map { "\"\($0)\"" }.joined(separator: ",")
        let cues = "{\"duration_ms\":\(manifest.durationMs),\"tile\":[\(manifest.tile.width),\(manifest.tile.height)],\"sheets\":[\(sheetList)],\"tiles\":[\(tiles)]}"
        var out = "<div class=\"storyboard\"><h3>Storyboard</h3>\n"
        out += "<div class=\"scrubber\" data-cues=\"cues-\(clip.id)\" tabindex=\"0\" role=\"slider\" aria-label=\"\(e("storyboard of " + clip.input))\" aria-valuemin=\"0\" aria-valuemax=\"\(manifest.durationMs)\" aria-valuenow=\"0\">\n"
        for (index, sheet) in sheets.enumerated() {
            out += "<img class=\"sheet\" src=\"\(sheet)\" loading=\"lazy\" alt=\"\(e("sheet \(index) of " + clip.input))\">\n"
        }
        out += "</div>\n<script type=\"application/json\" id=\"cues-\(clip.id)\">\(ReportEscaping.jsonForScript(cues))</script></div>\n"
        return out
    }

    private func picks() -> String {
        let picked = clip.lines.compactMap { $0.text("picks") }.filter { $0 != "[]" }
        guard !picked.isEmpty else { return "" }
        return "<details class=\"picks\"><summary>Picked posters and their scores</summary><pre>\(picked.map(e).joined(separator: "\n"))</pre></details>\n"
    }

    /// The exploded frames with their delays (the first 60).
    private func filmstrip() -> String {
        guard let frames = clip.frames, let base = clip.framesHref else { return "" }
        var out = "<details class=\"filmstrip\"><summary>Frames (\(frames.frames.count))</summary><ol>\n"
        for frame in frames.frames.prefix(60) {
            out += "<li><img src=\"\(base)/\(ReportEscaping.urlPath(frame.file))\" loading=\"lazy\" alt=\"\(e(frame.file))\"><span>\(frame.delayMs) ms</span></li>\n"
        }
        return out + "</ol></details>\n"
    }

    private func info() -> String {
        guard let info = clip.info else { return "" }
        let rows = info.fields.filter { !["input", "schema", "status", "error", "shard"].contains($0.key) }
            .map { "<tr><th scope=\"row\">\(e($0.key))</th><td>\(e($0.text))</td></tr>" }.joined(separator: "\n")
        return "<details class=\"info\"><summary>info</summary><table>\n\(rows)\n</table></details>\n"
    }

    private func rawLines() -> String {
        "<details class=\"raw\"><summary>JSON lines (\(clip.lines.count))</summary><pre>\(clip.lines.map { ReportEscaping.text($0.compactRaw) }.joined(separator: "\n"))</pre></details>\n"
    }
}
