// The settings of `clipkit report`: budgets, gating, copying, Markdown cap and link base, baseline, single file.
import Foundation

public struct ReportOptions: Sendable {
    /// What makes `clipkit report` exit 1 after writing (`--fail-on`).
    public enum Gate: String, Sendable, CaseIterable {
        case failed, budget, visual, warnings, shards
    }

    /// Largest bytes per output kind (`--budget gif=2MB,webp=500KB`).
    public var budgets: [ReportOutput.Kind: Int] = [:]
    public var failOn: Set<Gate> = []
    /// Copy every output into `media/` (default: only those outside the report directory's parent).
    public var copyMedia = false
    /// Where the report will be published: summary.md links images under it (never `data:`).
    public var linkBase: String?
    /// Most bytes summary.md may have.
    public var markdownMax = 1_000_000
    /// A baseline report directory or its report.json.
    public var baseline: URL?
    /// Also write the report as one HTML file here (`--single-file`).
    public var singleFile: URL?
    /// Most bytes inlined by `--single-file` (posters only beyond that).
    public var maxInline = 20_000_000
    public var limits = Limits()
    /// Canvas pixels the report decodes at most for GIF filmstrips (`GIFFilmstrip.pixelBudget`; tests set less).
    var filmstripPixelBudget = GIFFilmstrip.pixelBudget

    public init() {}

    /// Parses `gif=2MB,webp=500KB` with `size` turning a size text into bytes.
    public static func budgets(_ text: String, size: (String) throws -> Int) throws -> [ReportOutput.Kind: Int] {
        var budgets: [ReportOutput.Kind: Int] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let kind = ReportOutput.Kind(rawValue: parts[0].lowercased()) else {
                let kinds = ReportOutput.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ClipKitError.invalidOption(name: "--budget", reason: "'\(item)' is not KIND=SIZE with KIND one of \(kinds)")
            }
            budgets[kind] = try size(parts[1])
        }
        return budgets
    }

    public static func gates(_ text: String) throws -> Set<Gate> {
        var gates = Set<Gate>()
        for item in text.split(separator: ",") {
            guard let gate = Gate(rawValue: item.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw ClipKitError.invalidOption(name: "--fail-on", reason: "'\(item)' is not one of \(Gate.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            gates.insert(gate)
        }
        return gates
    }
}
