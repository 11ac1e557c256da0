// Helpers for output paths: creating `-o DIR/`, recognising directory targets, refusing to overwrite inputs.
import ClipKit
import Foundation

enum OutputPlan {
    /// Creates the directory named by `-o DIR/` if needed.
    static func prepare(output: String?) throws {
        guard let output, output.hasSuffix("/") else { return }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw ClipKitError.outputFailed(path: output, reason: "cannot create directory")
        }
    }

    static func isDirectoryTarget(_ output: String) -> Bool {
        if output.hasSuffix("/") { return true }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Refuses an output that is one of the inputs.
    static func checkNotInput(_ destination: URL, inputs: [URL]) throws {
        let target = destination.standardizedFileURL.resolvingSymlinksInPath().path
        for input in inputs where input.standardizedFileURL.resolvingSymlinksInPath().path == target {
            throw ClipKitError.outputIsInput(path: destination.path)
        }
    }
}
