// report.json: the report as data (schema in the README), the next run's --baseline, and the list of files the report directory owns.
import Foundation

enum ReportJSON {
    /// The `format` mark: a directory holding a report.json with it (and only the files it lists)
    /// is clipkit's, and a later `clipkit report` may replace it.
    static let format = "clipkit-report/1"
    static let fileName = "report.json"

    static func render(_ report: ReportDocument, files: [String]) -> String {
        let totals = report.totals
        var clips: [[String: Any]] = []
        for clip in report.clips {
            var object: [String: Any] = [
                "id": clip.id, "input": clip.input, "status": clip.status, "errors": clip.errors, "warnings": clip.warnings,
                "duration_ms": clip.durationMs ?? NSNull(), "bytes": clip.bytes,
                "outputs": clip.outputs.map { output -> [String: Any] in
                    ["kind": output.kind.rawValue, "path": output.path, "href": output.href ?? NSNull(), "bytes": output.bytes ?? NSNull(),
                     "budget": output.budget ?? NSNull(), "over_budget": output.isOverBudget]
                },
                // As read, one line each, byte for byte (unless JSON's grammar needs it written again: `RunLine.json`).
                "lines": clip.lines.map { JSONText.Raw(text: $0.json) },
            ]
            object["change"] = clip.change.map { change -> [String: Any] in
                ["class": change.kind.rawValue, "worst_ssim": change.worstSSIM ?? NSNull(), "worst_time_ms": change.worstTimeMs ?? NSNull(),
                 "baseline_bytes": change.baselineBytes]
            } ?? NSNull()
            clips.append(object)
        }
        let document: [String: Any] = [
            "format": format, "counts": report.countsLine, "baseline": report.baselineName ?? NSNull(),
            "totals": ["clips": totals.clips, "failed": totals.failed, "warnings": totals.warnings, "over_budget": totals.overBudget,
                       "clips_over_budget": totals.clipsOverBudget,
                       "outputs": Dictionary(uniqueKeysWithValues: totals.outputsPerKind), "bytes": totals.bytesPerKind, "changes": totals.changes],
            "shards": ["seen": report.runs.shardsSeen, "missing": report.runs.shardsMissing, "duplicated": report.runs.shardsDuplicated,
                       "without_lines": report.runs.filesWithoutLines],
            "notes": report.runNotes, "removed": report.removed, "clips": clips, "files": files,
        ]
        return JSONText.write(document, indent: 2) + "\n"
    }

    /// The files a report directory at `directory` owns, from its report.json, by their bytes
    /// (a stranger's file canonically equivalent to a listed name is not the report's); nil when
    /// it has none with clipkit's mark.
    static func ownedFiles(in directory: URL) -> Set<NameBytes>? {
        guard let object = readObject(directory.appendingPathComponent(fileName)), object["format"] as? String == format,
              let files = object["files"] as? [String] else { return nil }
        return Set((files + [fileName]).map(NameBytes.init))
    }

    static func readObject(_ url: URL) -> [String: Any]? {
        guard let data = FileSystemPath.contentsOfRegularFile(url.path, limit: 256 << 20), data.count <= 256 << 20 else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}
