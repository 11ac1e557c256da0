// Before/after: each clip against the baseline report's version of it, decoded by clipkit and put in one change class.
import Foundation

/// The classes, from the GIFs (the smallest lossless output; posters when there is no GIF):
/// - identical: the same pictures shown for the same times (frames split or merged differently still count);
/// - timing-only: the same pictures, shown for different times;
/// - re-encoded: the same timing, and every frame pair aligned by timestamp has luma SSIM >= 0.99;
/// - visual: anything else (a frame pair under 0.99, a different size, pictures and timing both changed);
/// - new / removed: an input only this run / only the baseline has.
struct ChangeClassifier {
    static let reencodedSSIM = 0.99

    let directory: URL
    /// The baseline's clips by their inputs' bytes (`NameBytes`), each with its input.
    let clips: [NameBytes: (input: String, clip: [String: Any])]
    let limits: Limits

    struct Comparison {
        var clips: [ReportClip]
        var removed: [String]
    }

    init(baseline: URL, limits: Limits) throws {
        let file = baseline.pathExtension == "json" ? baseline : baseline.appendingPathComponent(ReportJSON.fileName)
        guard let object = ReportJSON.readObject(file), object["format"] as? String == ReportJSON.format else {
            throw ClipKitError.invalidOption(name: "--baseline", reason: "\(file.path) is not a report.json written by clipkit report")
        }
        directory = file.deletingLastPathComponent()
        var clips: [NameBytes: (input: String, clip: [String: Any])] = [:]
        for clip in object["clips"] as? [[String: Any]] ?? [] {
            if let input = clip["input"] as? String { clips[NameBytes(input)] = (input, clip) }
        }
        self.clips = clips
        self.limits = limits
    }

    func compare(_ current: [ReportClip], staging: URL) throws -> Comparison {
        var result: [ReportClip] = []
        // Each clip's baseline: the one of its input's path, else the one at its place under the
        // directory all of each run's inputs share (two checkouts of one tree in different
        // workspaces, as CI runners make them: every clip was new and removed at once).
        let relativeNow = Self.relativeNames(current.map(\.input))
        let baselineInputs = Array(clips.values.map(\.input))
        let relativeBase = Self.relativeNames(baselineInputs)
        var byRelative: [NameBytes: NameBytes] = [:]
        for input in baselineInputs { if let relative = relativeBase[input] { byRelative[NameBytes(relative)] = NameBytes(input) } }
        func baselineKey(of input: String) -> NameBytes? {
            if clips[NameBytes(input)] != nil { return NameBytes(input) }
            return relativeNow[input].flatMap { byRelative[NameBytes($0)] }
        }
        var matched = Set<NameBytes>()
        for var clip in current {
            let key = baselineKey(of: clip.input)
            if let key { matched.insert(key) }
            // A failed input with nothing written has nothing to compare (its error is the news).
            if !clip.outputs.contains(where: { $0.source != nil }) {
                result.append(clip)
                continue
            }
            guard let key, let base = clips[key]?.clip else {
                clip.change = ClipChange(kind: .new)
                result.append(clip)
                continue
            }
            clip.change = try classify(clip, base, staging: staging)
            result.append(clip)
        }
        let removed = clips.filter { !matched.contains($0.key) }.map(\.value.input)
        return Comparison(clips: result, removed: removed.sorted(by: NameBytes.precedes))
    }

    /// Each input's path under the longest directory all of `inputs` share (a lone input's: its
    /// name); standard input ("-") and relative paths have none.
    static func relativeNames(_ inputs: [String]) -> [String: String] {
        let absolute = inputs.filter { $0.hasPrefix("/") }
        guard let first = absolute.first else { return [:] }
        var common = Array((first as NSString).pathComponents.dropLast())
        for input in absolute.dropFirst() {
            let directory = (input as NSString).pathComponents.dropLast()
            var shared = 0
            while shared < min(common.count, directory.count), common[shared] == directory[directory.startIndex + shared] { shared += 1 }
            common = Array(common.prefix(shared))
        }
        var names: [String: String] = [:]
        for input in absolute {
            names[input] = NSString.path(withComponents: Array((input as NSString).pathComponents.dropFirst(common.count)))
        }
        return names
    }

    /// The baseline's file of `kind`, found through its href relative to the baseline report.
    private func baselineFile(_ base: [String: Any], kind: ReportOutput.Kind) -> URL? {
        for output in base["outputs"] as? [[String: Any]] ?? [] where output["kind"] as? String == kind.rawValue {
            guard let href = (output["href"] as? String)?.removingPercentEncoding else { continue }
            let url = directory.appendingPathComponent(href).standardizedFileURL
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    private func classify(_ clip: ReportClip, _ base: [String: Any], staging: URL) throws -> ClipChange {
        var change = try classifyPictures(clip, base, staging: staging)
        // Copied like the GIF: the baseline report may be a downloaded artifact gone tomorrow.
        if clip.outputs.contains(where: { $0.kind == .mp4 && $0.href != nil }), let video = baselineFile(base, kind: .mp4) {
            let name = "media/\(clip.id)-baseline.mp4"
            if (try? FileManager.default.copyItem(at: video, to: staging.appendingPathComponent(name))) != nil { change.baselineVideoHref = name }
        }
        return change
    }

    private func classifyPictures(_ clip: ReportClip, _ base: [String: Any], staging: URL) throws -> ClipChange {
        var bytes: [String: Int] = [:]
        for output in base["outputs"] as? [[String: Any]] ?? [] {
            if let kind = output["kind"] as? String, let count = output["bytes"] as? Int { bytes[kind, default: 0] += count }
        }
        // A clip that failed this run and lacks an output the baseline has (its command failed
        // this time) is a change whatever the others show: a clip whose GIF failed was
        // "identical" by its posters. (An output not asked for this run, with nothing failed, is
        // no change: the others are compared.)
        let baselineKinds = Set((base["outputs"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
        let kindsNow = Set(clip.outputs.filter { $0.source != nil }.map(\.kind.rawValue))
        let missing = baselineKinds.subtracting(kindsNow).sorted()
        if !missing.isEmpty, !clip.errors.isEmpty {
            let what = missing.joined(separator: ", ")
            return ClipChange(kind: .visual, baselineBytes: bytes, note: "no \(what) output this run, where the baseline has \(missing.count == 1 ? "one" : "them")")
        }
        let comparison: FrameComparison
        var baselineHref: String?
        let media = staging.appendingPathComponent("media")
        try ReportStaging.makeDirectory(media)
        if let now = clip.outputs.first(where: { $0.kind == .gif && $0.source != nil })?.source, let before = baselineFile(base, kind: .gif) {
            do {
                comparison = try FrameComparison.compare(before, now, limits: limits)
            } catch {
                return ClipChange(kind: .visual, baselineBytes: bytes, note: "could not compare: \(error)")
            }
            let name = "media/\(clip.id)-baseline.gif"
            try? FileManager.default.copyItem(at: before, to: staging.appendingPathComponent(name))
            baselineHref = name
        } else if let now = clip.outputs.first(where: { $0.kind == .poster && $0.source?.pathExtension.lowercased() == "png" })?.source,
                  let before = baselineFile(base, kind: .poster), before.pathExtension.lowercased() == "png",
                  let a = try? PNGReader.read(before), let b = try? PNGReader.read(now) {
            comparison = FrameComparison.compare(still: a, b)
        } else {
            return ClipChange(kind: .visual, baselineBytes: bytes, note: "no GIF or PNG poster in both reports to compare")
        }
        let kind: ClipChange.Kind
        if comparison.samePictures && !comparison.sizesDiffer {
            kind = comparison.sameTiming ? .identical : .timingOnly
        } else if comparison.sameTiming && !comparison.sizesDiffer && comparison.worstSSIM >= Self.reencodedSSIM {
            kind = .reencoded
        } else {
            kind = .visual
        }
        var hrefs: [String] = []
        if kind == .visual || kind == .reencoded, let (a, b) = comparison.worstPair {
            let names = ["before", "after", "diff"].map { "media/\(clip.id)-worst-\($0).png" }
            for (name, image) in zip(names, [a, b, FrameComparison.difference(a, b)]) {
                try PNGWriter.write(image, to: staging.appendingPathComponent(name))
            }
            hrefs = names
        }
        let worst = comparison.worstPair == nil ? nil : comparison.worstSSIM
        return ClipChange(kind: kind, curve: comparison.curve, worstSSIM: worst, worstTimeMs: worst == nil ? nil : comparison.worstTimeMs,
                          baselineBytes: bytes, baselineHref: baselineHref, worstPairHrefs: hrefs)
    }
}
