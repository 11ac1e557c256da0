// What the report shows of one clip: its outputs (where they are and how big), storyboard, frames, info and change class.
import Foundation

/// One file or directory a run wrote, as the report links it.
public struct ReportOutput: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case gif, webp, mp4, poster, storyboard, frames, file
    }

    public var kind: Kind
    /// The path as the run's line named it.
    public var path: String
    /// Where it is on disk now (nil when it is gone).
    var source: URL?
    /// Relative to the report directory: the output itself (`../gifs/a.gif`) or its copy (`media/...`).
    public var href: String?
    /// Where a copy goes in the report directory (relative), when it is copied.
    var copy: String?
    public var bytes: Int?
    /// `--budget` for its kind, and whether it is over.
    public var budget: Int?
    public var isOverBudget: Bool { budget.map { ($0 < (bytes ?? 0)) } ?? false }
    /// The line that named it.
    public var line: RunLine
}

/// The comparison with the baseline's version of a clip (see `ChangeClassifier`).
public struct ClipChange: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case identical, reencoded = "re-encoded", timingOnly = "timing-only", visual, new, removed
    }

    public var kind: Kind
    /// Per compared frame pair, aligned by timestamp: (milliseconds, luma SSIM).
    public var curve: [(Int, Double)]
    public var worstSSIM: Double?
    public var worstTimeMs: Int?
    /// The baseline's bytes per output kind (for the delta).
    public var baselineBytes: [String: Int]
    /// Report-relative hrefs of the baseline's animation, the worst frames and their difference image.
    public var baselineHref: String?
    /// The baseline's MP4, copied, when both runs wrote one: the compare view plays the two in sync.
    public var baselineVideoHref: String?
    public var worstPairHrefs: [String]
    public var note: String?

    public init(kind: Kind, curve: [(Int, Double)] = [], worstSSIM: Double? = nil, worstTimeMs: Int? = nil,
                baselineBytes: [String: Int] = [:], baselineHref: String? = nil, worstPairHrefs: [String] = [], note: String? = nil) {
        self.kind = kind
        self.curve = curve
        self.worstSSIM = worstSSIM
        self.worstTimeMs = worstTimeMs
        self.baselineBytes = baselineBytes
        self.baselineHref = baselineHref
        self.worstPairHrefs = worstPairHrefs
        self.note = note
    }

    public static func == (a: ClipChange, b: ClipChange) -> Bool {
        a.kind == b.kind && a.worstSSIM == b.worstSSIM && a.curve.map(\.0) == b.curve.map(\.0) && a.curve.map(\.1) == b.curve.map(\.1)
    }
}

/// A clip (one input) in the report.
public struct ReportClip: Sendable {
    /// The page anchor: `clip-1`, `clip-2`... in input order.
    public var id: String
    public var input: String
    public var status: String
    public var errors: [String]
    public var lines: [RunLine]
    public var outputs: [ReportOutput]
    public var storyboard: StoryboardManifest?
    /// The storyboard directory's href (sheets are `href + "/" + sheet.file`).
    public var storyboardHref: String?
    public var frames: FramesManifest?
    public var framesHref: String?
    /// The GIF's frames when no `explode` output has them (see `GIFFilmstrip`).
    public var gifFrames: GIFFilmstrip?
    /// The `info --json` line, when one was read.
    public var info: RunLine?
    public var change: ClipChange?
    public var warnings: [String]

    /// The still shown on the card: a poster, else the first storyboard tile's sheet, else the animation.
    public var posterHref: String? {
        outputs.first { $0.kind == .poster && $0.href != nil }?.href
            ?? animation?.href
    }

    /// The animated preview played on hover: the first GIF or animated WebP.
    public var animation: ReportOutput? { outputs.first { ($0.kind == .gif || $0.kind == .webp) && $0.href != nil } }

    public var formats: [String] { Array(Set(outputs.map(\.kind.rawValue))).sorted() }
    public var isOverBudget: Bool { outputs.contains { $0.isOverBudget } }
    /// The budget filter's value: `over` (an output over its budget), `within` (every budgeted
    /// output written and within it), `unchecked` (a failed clip, whose missing outputs were never
    /// weighed, or one without a budgeted output): a failed clip counted as within.
    public var budgetState: String {
        if isOverBudget { return "over" }
        return status == "error" || !outputs.contains(where: { $0.budget != nil && $0.source != nil }) ? "unchecked" : "within"
    }
    public var durationMs: Int? { lines.lazy.compactMap { $0.number("duration_ms") }.first.map { Int($0) } }
    public var bytes: Int { outputs.reduce(0) { $0 + ($1.bytes ?? 0) } }
}
