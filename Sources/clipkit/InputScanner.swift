// Expands the command line's inputs: files as given, directories to the media files inside them.
import ClipKit
import Foundation

/// One input of a batch, and where its output goes relative to the output directory.
struct BatchInput: Sendable, Equatable {
    var url: URL
    /// The sub-directory of a directory input this file was found in ("" for files named on
    /// the command line, or at the top of a named directory): outputs mirror the input tree.
    var relativeDirectory: String
    /// Why this input cannot be processed, found while expanding (a directory with no media):
    /// reported as that input's failure without stopping the others.
    var problem: ClipKitError?

    init(url: URL, relativeDirectory: String = "", problem: ClipKitError? = nil) {
        self.url = url
        self.relativeDirectory = relativeDirectory
        self.problem = problem
    }
}

enum InputScanner {
    /// Files stay as given (checked later, one error each). A directory gives the media files in
    /// it, recognised by content (`MediaProbe`), sorted by name; with `recursive`, those in its
    /// sub-directories too; one with none gives an input carrying that `problem`. Hidden files
    /// and directories are skipped.
    static func expand(_ paths: [String], recursive: Bool) -> [BatchInput] {
        var inputs: [BatchInput] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                inputs.append(BatchInput(url: URL(fileURLWithPath: path)))
                continue
            }
            let found = scan(URL(fileURLWithPath: path, isDirectory: true), relative: "", recursive: recursive)
            if found.isEmpty {
                inputs.append(BatchInput(url: URL(fileURLWithPath: path), problem: .noFrames(path: path, reason: recursive
                    ? "no video or GIF files in this directory or below it"
                    : "no video or GIF files in this directory (add -r to search sub-directories)")))
            }
            inputs += found
        }
        return inputs
    }

    private static func scan(_ directory: URL, relative: String, recursive: Bool) -> [BatchInput] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { !$0.hasPrefix(".") }
            .sorted()
        var files: [BatchInput] = [], directories: [String] = []
        for name in names {
            let url = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                directories.append(name)
            } else if isRegularFile(url), MediaProbe.isMedia(url) {
                files.append(BatchInput(url: url, relativeDirectory: relative))
            }
        }
        if recursive {
            for name in directories {
                let sub = relative.isEmpty ? name : relative + "/" + name
                files += scan(directory.appendingPathComponent(name, isDirectory: true), relative: sub, recursive: true)
            }
        }
        return files
    }

    private static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return stat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
