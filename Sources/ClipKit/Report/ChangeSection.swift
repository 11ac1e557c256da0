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

    /// SSIM against time, from 1 (top) down to below the lowest value (bottom): at least 0.9,
    /// lower in steps of 0.05 when the data goes lower (the axis was fixed at 0.9, and a pair at
    /// 0.6 drew as if at 0.9). Classes only, no style attributes.
    private func curve() -> String {
        guard change.curve.count > 1, let end = change.curve.last?.0, end > 0 else { return "" }
        let width = 600.0, height = 120.0
        let bottom = Self.axisBottom(lowest: change.curve.map(\.1).min() ?? 1)
        func y(_ ssim: Double) -> Double { (1 - min(max((ssim - bottom) / (1 - bottom), 0), 1)) * height }
        let points = change.curve.map { time, ssim -> String in
            String(format: "%.1f,%.1f", Double(time) / Double(end) * width, y(ssim))
        }.joined(separator: " ")
        let threshold = String(format: "%.1f", y(ChangeClassifier.reencodedSSIM))
        let low = String(format: "%.2f", bottom)
        return """
        <svg class="ssim-curve" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="per-frame SSIM, \(low) to 1"><title>per-frame SSIM against time</title>
        <line class="threshold" x1="0" x2="\(Int(width))" y1="\(threshold)" y2="\(threshold)"></line>
        <polyline class="ssim" points="\(points)"></polyline>
        <text class="axis" x="4" y="12">1</text><text class="axis" x="4" y="\(Int(height) - 4)">\(low)</text></svg>

        """
    }

    /// The curve's bottom: 0.9, or a multiple of 0.05 at least 0.01 under `lowest` (so its
    /// lowest point is drawn, not clipped at the edge), never under -1 (SSIM's least).
    static func axisBottom(lowest: Double) -> Double {
        guard lowest.isFinite, lowest - 0.01 < 0.9 else { return 0.9 }
        return max(-1, ((lowest - 0.01) * 20).rounded(.down) / 20)
    }
}
