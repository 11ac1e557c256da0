// Decides where each input's output goes: beside the current directory, a named file, or into a directory.
import Foundation

public enum OutputPlan {
    /// The output path for `input` with extension `ext`, given the `-o` value.
    /// `-o DIR/` (trailing slash, or an existing directory) puts `NAME.ext` there; a file name is
    /// allowed only with a single input; no `-o` writes `NAME.ext` in the current directory.
    public static func destination(for input: URL, output: String?, extension ext: String, inputCount: Int) throws -> URL {
        let name = input.deletingPathExtension().lastPathComponent + "." + ext
        guard let output else {
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(name)
        }
        if isDirectoryTarget(output) {
            return URL(fileURLWithPath: output, isDirectory: true).appendingPathComponent(name)
        }
        if inputCount > 1 {
            throw ClipKitError.invalidOption(name: "-o", reason: "with several inputs, -o must be a directory (end it with /)")
        }
        return URL(fileURLWithPath: output)
    }

    /// Creates the directory named by `-o DIR/` if needed.
    public static func prepare(output: String?) throws {
        guard let output, output.hasSuffix("/") else { return }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw ClipKitError.outputFailed(path: output, reason: "cannot create directory")
        }
    }

    public static func isDirectoryTarget(_ output: String) -> Bool {
        if output.hasSuffix("/") { return true }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Refuses an output that is one of the inputs.
    public static func checkNotInput(_ destination: URL, inputs: [URL]) throws {
        let target = destination.standardizedFileURL.resolvingSymlinksInPath().path
        for input in inputs where input.standardizedFileURL.resolvingSymlinksInPath().path == target {
            throw ClipKitError.outputIsInput(path: destination.path)
        }
    }
}
