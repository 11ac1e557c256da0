// Turns the merged runs into the report's clips: finds each output on disk, sizes it, and decides whether it is linked or copied.
import Foundation

/// Outputs under the report directory's parent (the folder a CI job uploads) are linked
/// relative (`../gifs/a.gif`); others, and every output with `copyMedia`, are copied into
/// `media/` under a safe name, so the page never links outside what is published.
struct ReportBuilder {
    let target: URL
    let options: ReportOptions
    private let parent: String
    private let targetPath: String

    init(target: URL, options: ReportOptions) {
        self.target = target.standardizedFileURL
        self.options = options
        targetPath = Self.realPath(self.target)
        parent = Self.realPath(self.target.deletingLastPathComponent())
    }

    func clips(of runs: RunSet) throws -> [ReportClip] {
        var clips: [ReportClip] = []
        var copies: [NameBytes: String] = [:]
        for (index, run) in runs.clips.enumerated() {
            try options.limits.checkDeadline(run.input)
            clips.append(clip(run, number: index + 1, copies: &copies))
        }
        return clips
    }

    /// `copies`: the `media/` name each file already copied has, by its real path's bytes (two
    /// canonically equivalent names are two files): a file named by many lines is copied once
    /// (20,000 lines naming one 367 KB GIF made 7 GB of copies).
    private func clip(_ run: ClipRuns, number: Int, copies: inout [NameBytes: String]) -> ReportClip {
        let id = "clip-\(number)"
        var clip = ReportClip(id: id, input: run.input, status: run.status, errors: run.errors, lines: run.lines, outputs: [],
                              info: run.lines.first { $0.isInfo }, warnings: [])
        for line in run.lines where !line.isInfo {
            // The input's own (damage, a file cut short), once each however many commands read it.
            for warning in line.warnings where !clip.warnings.contains(warning) { clip.warnings.append(warning) }
            for path in line.outputs {
                var output = ReportOutput(kind: .file, path: path, line: line)
                let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileSystemPath.currentDirectory)).standardizedFileURL
                var info = stat()
                let found = stat(FileSystemPath.cString(url.path), &info) == 0
                let type = info.st_mode & S_IFMT
                if found && !(type == S_IFDIR || (type == S_IFREG && info.st_size > 0)) {
                    // Nothing reads or copies it: a FIFO or device would block, and a /proc file
                    // of size 0 may too (what clipkit wrote is a regular file or a directory).
                    clip.warnings.append("output is \(type == S_IFREG ? "empty" : "not a regular file or directory"): \(path)")
                } else if found {
                    let isDirectory = type == S_IFDIR
                    output.source = url
                    output.kind = Self.kind(of: url, isDirectory: isDirectory, line: line)
                    output.bytes = isDirectory ? Self.bytes(inDirectory: url) : Int(info.st_size)
                    let real = Self.realPath(url)
                    if !options.copyMedia && real.hasPrefix(parent + "/") && real != targetPath && !real.hasPrefix(targetPath + "/") {
                        output.href = ReportEscaping.urlPath("../" + real.dropFirst(parent.count + 1))
                    } else if output.kind == .file {
                        // Only what clipkit writes is copied into the published folder: a line
                        // naming any other file (`"outputs":["/etc/passwd"]`) would publish it.
                        clip.warnings.append("output is not a GIF, WebP, MP4, image or clipkit directory, so it is not copied: \(path)")
                    } else if !isDirectory && !Self.holdsWhatItsNameSays(url, kind: output.kind) {
                        // Nor a file named like one that is not one: `shadow.gif`, a link to
                        // /etc/shadow, was copied into media/ readable to all.
                        clip.warnings.append("output is not the picture or video its name says, so it is not copied: \(path)")
                    } else if let name = copies[NameBytes(real)] {
                        output.href = ReportEscaping.urlPath(name)
                    } else {
                        let name = "media/\(number)-\(clip.outputs.count + 1)-\(ReportEscaping.safeFileName(url.lastPathComponent))"
                        copies[NameBytes(real)] = name
                        output.copy = name
                        output.href = ReportEscaping.urlPath(name)
                    }
                } else if line.status != "error" {
                    clip.warnings.append("output missing: \(path)")
                }
                // A breach is a problem of its own (ReportDocument.problems), not also a warning.
                output.budget = options.budgets[output.kind]
                if output.kind == .storyboard, let source = output.source {
                    clip.storyboard = try? StoryboardManifest.read(from: source.appendingPathComponent(StoryboardManifest.fileName))
                    clip.storyboardHref = output.href
                }
                if output.kind == .frames, let source = output.source {
                    clip.frames = try? FramesManifest.read(from: source.appendingPathComponent("frames.json"))
                    clip.framesHref = output.href
                }
                clip.outputs.append(output)
            }
        }
        return clip
    }

    /// Whether the file at `url` begins as a file of its `kind` does: GIF87a/GIF89a, an MP4's
    /// `ftyp` box, a WebP's RIFF header, a PNG's or a JPEG's signature.
    static func holdsWhatItsNameSays(_ url: URL, kind: ReportOutput.Kind) -> Bool {
        guard let head = FileSystemPath.contentsOfRegularFile(url.path, limit: 12).map(Array.init), head.count >= 12 else { return false }
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool { Array(head[offset..<offset + bytes.count]) == bytes }
        switch kind {
        case .gif: return starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8))
        case .mp4: return starts(Array("ftyp".utf8), at: 4)
        case .webp: return starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)
        case .poster:
            return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) || starts([0xFF, 0xD8, 0xFF])
                || (starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8))
        default: return false
        }
    }

    static func kind(of url: URL, isDirectory: Bool, line: RunLine) -> ReportOutput.Kind {
        if isDirectory {
            if FileSystemPath.exists(url.appendingPathComponent(StoryboardManifest.fileName).path) { return .storyboard }
            if FileSystemPath.exists(url.appendingPathComponent("frames.json").path) { return .frames }
            return .file
        }
        switch url.pathExtension.lowercased() {
        case "gif": return .gif
        case "mp4": return .mp4
        // `thumb` lines have no duration; `gif --format webp` lines do.
        case "webp": return line.number("duration_ms") != nil ? .webp : .poster
        case "png", "jpg", "jpeg": return .poster
        default: return .file
        }
    }

    /// The sizes of the directory's entries (one stat each: this runs for every storyboard and frames output).
    static func bytes(inDirectory url: URL) -> Int {
        let names = FileSystemPath.contents(of: url.path) ?? []
        return names.reduce(0) { total, name in
            var info = stat()
            return total + (stat(FileSystemPath.cString(url.path + "/" + name), &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    static func realPath(_ url: URL) -> String {
        guard let resolved = realpath(FileSystemPath.cString(url.path), nil) else { return url.standardizedFileURL.path }
        defer { free(resolved) }
        return FileSystemPath.string(cString: resolved)
    }
}
