// Recognises what clipkit wrote, by the marks its outputs carry, so a batch's directory walk can leave it out.
import Foundation

/// What clipkit wrote, known by the marks in it: a file's recorded `Fingerprint`, a
/// directory's manifest (`explode`'s `frames.json`, a storyboard's, a report's `report.json`,
/// each with clipkit's format mark). A batch that writes its outputs into the directory it
/// searches (`clipkit thumb .`, `-o` the input directory) would otherwise take them for inputs
/// on its next run: the thumbnail `clip.png` beside `clip.mp4` became an input writing
/// `clip.png` too (refused, exit 2, every rerun), and a storyboard's sheets became storyboards
/// of their own, one level deeper each run.
public enum ClipKitOutput {
    /// Whether `directory` is an output directory clipkit wrote: `explode`'s frames, a
    /// storyboard or a report, by its manifest's format mark (whatever else is in it).
    public static func isDirectory(_ directory: URL) -> Bool {
        OutputDirectoryKind.all.contains { $0.ownedFiles(directory) != nil } || ReportJSON.ownedFiles(in: directory) != nil
    }

    /// Whether `file` is a GIF, PNG, WebP or MP4 that records a clipkit fingerprint (reads its
    /// last 512 bytes).
    public static func isFile(_ file: URL) -> Bool {
        Fingerprint.recorded(in: file) != nil
    }
}
