// The before/after block of a clip's section: change class, per-frame SSIM curve as inline SVG, worst pair, and the compare views.
import Foundation

struct ChangeSection {
    let clip: ReportClip
    let change: ClipChange

    func html() -> String {
        var out = "<div class=\"change \(change.kind.rawValue)\"><h3>Change: \(change.kind.rawValue)</h3>\n"
        if let note = change.note { out += "<p>\(ReportEscaping.html(note))</p>\n" }
        if let worst = change.worstSSIM, let time = change.worstTimeMs {
            out += "<p>Lowest frame SSIM \(String(format: "%.4f", worst)) at \(ReportPage.duration(time)).</p>\n"
        }
        out += curve()
        if change.worstPairHrefs.count == 3 {
            let labels = ["baseline", "this run", "difference (x4)"]
            out += "<div class=\"worst\">" + zip(change.worstPairHrefs, labels).map { href, label in
                "<figure><img src=\"\(href)\" loading=\"lazy\" alt=\"\(label)\"><figcaption>\(label)</figcaption></figure>"
            }.joined() + "</div>\n"
        }
        if let before = change.baselineVideoHref, let after = clip.outputs.first(where: { $0.kind == .mp4 && $0.href != nil })?.href {
            // The MP4s when both runs have one: report.js plays, pauses and seeks them together.
            out += "<div class=\"compare\" data-mode=\"side\"><figure class=\"before\">\(Self.video(before))<figcaption>baseline</figcaption></figure>"
            out += "<figure class=\"after\">\(Self.video(after))<figcaption>this run</figcaption></figure></div>\n"
        } else if let before = change.baselineHref, let after = clip.animation?.href {
            // Side by side without script; report.js adds the slider and flip buttons.
            out += "<div class=\"compare\" data-mode=\"side\"><figure class=\"before\"><img src=\"\(before)\" loading=\"lazy\" alt=\"baseline\"><figcaption>baseline</figcaption></figure>"
            out += "<figure class=\"after\"><img src=\"\(after)\" loading=\"lazy\" alt=\"this run\"><figcaption>this run</figcaption></figure></div>\n"
        }
        return out + "</div>\n"
    }

    static func video(_ href: String) -> String {
        "<video src=\"\(href)\" controls muted playsinline preload=\"metadata\"></video>"
    }

    /// SSIM from 0.9 (bottom) to 1 (top) against time; classes only, no style attributes.
    private func curve() -> String {
        guard change.curve.count > 1, let end = change.curve.last?.0, end > 0 else { return "" }
        let width = 600.0, height = 120.0
        let points = change.curve.map { time, ssim -> String in
            let x = Double(time) / Double(end) * width
            let y = (1 - min(max((ssim - 0.9) / 0.1, 0), 1)) * height
            return String(format: "%.1f,%.1f", x, y)
        }.joined(separator: " ")
        let threshold = (1 - (ChangeClassifier.reencodedSSIM - 0.9) / 0.1) * height
        return """
        <svg class="ssim-curve" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="per-frame SSIM, 0.9 to 1"><title>per-frame SSIM against time</title>
        <line class="threshold" x1="0" x2="\(Int(width))" y1="\(String(format: "%.1f", threshold))" y2="\(String(format: "%.1f", threshold))"></line>
        <polyline class="ssim" points="\(points)"></polyline></svg>

        """
    }
}
