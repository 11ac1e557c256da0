// The outputs asked of one conversion, sorted by kind: at most one GIF, a poster, WebP/MP4 files.
import Foundation

/// What one input is converted into: by extension, `.gif` (at most one), `.webp` and `.mp4`
/// (at most one each), and a PNG poster of the first frame. Known before anything is decoded.
struct ConversionOutputs: Sendable {
    var gif: URL?
    var poster: URL?
    /// The WebP/MP4 outputs, in the order asked for.
    var animations: [AnimationTarget] = []

    /// Sorts `outputs` by extension; throws a usage error for two of one kind or none at all.
    init(_ outputs: [URL], poster: URL?) throws {
        self.poster = poster
        for output in outputs {
            if let format = AnimationFormat(pathExtension: FileSystemPath.nameExtension(of: output.path)) {
                guard !animations.contains(where: { $0.format == format }) else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "one \(format.rawValue) output per input: the second would be the same file")
                }
                animations.append(AnimationTarget(url: output, format: format))
            } else {
                guard gif == nil else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "one GIF output per input: the second would be the same file")
                }
                gif = output
            }
        }
        guard gif != nil || !animations.isEmpty else {
            throw ClipKitError.invalidOption(name: "-o", reason: "no output given")
        }
    }

    /// A GIF alone.
    init(gif: URL) {
        self.gif = gif
    }
}
