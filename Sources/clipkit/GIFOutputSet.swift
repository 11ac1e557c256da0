// `gif`'s outputs: which formats each input gives and where, from -o and --format.
import ClipKit
import Foundation

extension GIFCommand {
    /// Which files each input gives: the formats (the first names the output, the others are
    /// written beside it with their own extensions), or the files given with several `-o`.
    struct OutputSet {
        var formats: [String]
        /// Several `-o` files (one input): the first is the output, the rest its companions.
        var files: [URL] = []
    }

    static let formatNames = ["gif", "webp", "mp4"]

    /// The format an output file's extension names (`m4v` is MP4), nil when it names none.
    static func format(of path: String) -> String? {
        let ext = FileSystemPath.nameExtension(of: path)
        return ext == "m4v" ? "mp4" : formatNames.contains(ext) ? ext : nil
    }

    func outputSet(job: Job) throws -> OutputSet {
        var set: OutputSet
        if output.count > 1 {
            guard format == nil else {
                throw ClipKitError.invalidOption(name: "--format", reason: "give several -o files or --format, not both")
            }
            let directoryInput = FileSystemPath.isDirectory(inputs[0])
            guard case .videos = job, inputs.count == 1, !directoryInput else {
                throw ClipKitError.invalidOption(name: "-o", reason: "several -o files take one video input (its outputs in several formats)")
            }
            var formats: [String] = []
            for file in output {
                guard let format = Self.format(of: file), !file.hasSuffix("/") else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "\(file): with several -o, each names a .gif, .webp or .mp4 file")
                }
                guard !formats.contains(format) else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "two \(format) outputs: one file per format")
                }
                formats.append(format)
            }
            set = OutputSet(formats: formats, files: output.map { URL(fileURLWithPath: $0) })
        } else if let format {
            let formats = format.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !formats.isEmpty, formats.allSatisfy(Self.formatNames.contains), Set(formats).count == formats.count else {
                throw ClipKitError.invalidOption(name: "--format", reason: "'\(format)' is not a list of gif, webp, mp4 (each once)")
            }
            if let file = output.first, let named = Self.format(of: file), !OutputPlan.isDirectoryTarget(file), named != formats[0] {
                throw ClipKitError.invalidOption(name: "--format", reason: "\(file) is named .\(named) but the first format is \(formats[0])")
            }
            set = OutputSet(formats: formats)
        } else {
            set = OutputSet(formats: [output.first.flatMap { OutputPlan.isDirectoryTarget($0) ? nil : Self.format(of: $0) } ?? "gif"])
        }
        if case .videos = job {} else if set.formats != ["gif"] {
            throw ClipKitError.invalidOption(name: "--format", reason: "image frames and frames.json make GIFs only")
        }
        if maxBytes != nil, !set.formats.contains("gif") {
            throw ClipKitError.invalidOption(name: "--max-bytes", reason: "fits a GIF; ask for a .gif output too, or use --quality/--crf")
        }
        // An option for a format this run does not write would do nothing: bad usage, as --delay
        // for a video is (it was taken silently: `-o a.gif --crf 18`, `-o a.mp4 --colors 64`).
        let written = set.formats.joined(separator: ", ")
        if lossless, !set.formats.contains("webp") {
            throw ClipKitError.invalidOption(name: "--lossless", reason: "is for WebP outputs (-o NAME.webp or --format webp); this run writes \(written)")
        }
        if crf != nil, !set.formats.contains("mp4") {
            throw ClipKitError.invalidOption(name: "--crf", reason: "is for MP4 outputs (-o NAME.mp4 or --format mp4); this run writes \(written)")
        }
        if !set.formats.contains("gif") {
            let gifOnly: [(String, Bool)] = [("--colors", colors != nil), ("--dither", dither != nil), ("--palette", palette != PaletteMode.auto.rawValue),
                                             ("--threshold", threshold != nil), ("--lossy", lossy != nil), ("--palette-error", paletteError != nil)]
            if let (name, _) = gifOnly.first(where: \.1) {
                throw ClipKitError.invalidOption(name: name, reason: "is for GIF outputs; this run writes \(written)")
            }
        }
        return set
    }
}
