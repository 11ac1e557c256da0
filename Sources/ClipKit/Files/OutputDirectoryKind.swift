// The kinds of output directory clipkit writes, each known by its manifest: what a later run may replace or skip.
import Foundation

/// An output directory written whole by one command (`explode`, `storyboard`) and marked as
/// clipkit's own by the manifest in it. A later run replaces such a directory only when that
/// manifest carries clipkit's format mark and lists everything else in it, and skips it when the
/// manifest records the same fingerprint.
struct OutputDirectoryKind: Sendable {
    /// The manifest's file name (`frames.json`, `storyboard.json`).
    let manifestName: String
    /// The command that writes it, for messages (`explode`).
    let command: String
    /// The names of every file the manifest in a directory lists, itself included, when it is a
    /// whole manifest clipkit wrote (its format mark); nil otherwise.
    let ownedFiles: @Sendable (URL) -> Set<String>?
    /// The fingerprint the manifest in a directory records, when the output is whole.
    let recordedFingerprint: @Sendable (URL) -> Fingerprint?

    /// `explode`'s `NAME.frames/`.
    static let frames = OutputDirectoryKind(
        manifestName: Exploder.manifestName, command: "explode",
        ownedFiles: { directory in
            guard let manifest = try? FramesManifest.read(from: directory.appendingPathComponent(Exploder.manifestName)),
                  manifest.format == FramesManifest.currentFormat else { return nil }
            return Set(manifest.frames.map(\.file) + [Exploder.manifestName])
        },
        recordedFingerprint: { FramesManifest.recordedFingerprint(in: $0) })

    /// `storyboard`'s `NAME.storyboard/`.
    static let storyboard = OutputDirectoryKind(
        manifestName: StoryboardManifest.fileName, command: "storyboard",
        ownedFiles: { directory in
            guard let manifest = try? StoryboardManifest.read(from: directory.appendingPathComponent(StoryboardManifest.fileName)),
                  manifest.format == StoryboardManifest.currentFormat else { return nil }
            return Set(manifest.files)
        },
        recordedFingerprint: { StoryboardManifest.recordedFingerprint(in: $0) })

    /// Every kind, for recognising an output directory by what it holds.
    static let all: [OutputDirectoryKind] = [.frames, .storyboard]
}
