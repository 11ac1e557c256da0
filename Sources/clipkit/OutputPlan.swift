// Helpers for output paths: creating `-o DIR/`, recognising directory targets, refusing to overwrite inputs.
import ClipKit
import Foundation

enum OutputPlan {
    /// Creates the directory named by `-o DIR/` if needed.
    static func prepare(output: String?) throws {
        guard let output, output.hasSuffix("/") else { return }
        try prepare(directory: output)
    }

    /// Creates the output directory `path` (and its parents) if missing; an existing file there is an error.
    static func prepare(directory path: String) throws {
        var isDirectory = false
        if FileSystemPath.exists(path, isDirectory: &isDirectory) {
            guard isDirectory else {
                throw ClipKitError.outputFailed(path: path, reason: "is a file, but several outputs need a directory here")
            }
            return
        }
        do {
            try FileSystemPath.createDirectories(path)
        } catch {
            throw ClipKitError.cannotCreateDirectory(path, error)
        }
    }

    static func isDirectoryTarget(_ output: String) -> Bool {
        if output.hasSuffix("/") { return true }
        return FileSystemPath.isDirectory(output)
    }

    /// Refuses an output that is one of the inputs.
    static func checkNotInput(_ destination: URL, inputs: [URL]) throws {
        try checkNotInput(destination, resolvedInputs: Set(inputs.map(resolved)))
    }

    /// The same against inputs already resolved by `resolved(_:)` (a batch resolves them once,
    /// not once per output).
    static func checkNotInput(_ destination: URL, resolvedInputs: Set<[UInt8]>) throws {
        if resolvedInputs.contains(resolved(destination)) {
            throw ClipKitError.outputIsInput(path: destination.path)
        }
    }

    /// Refuses to replace `destination` when it is a regular file that records no clipkit
    /// fingerprint (`ClipKitOutput.isFile`), unless `force`: clipkit replaces only what it
    /// provably wrote. (A `b.gif` of the user's own beside `b.mp4` was replaced by `clipkit gif
    /// b.mp4`; ffmpeg, without `-y`, refuses too.) Devices and missing files pass.
    /// A symbolic link to nothing is refused too, unless `force`: writing through it would make
    /// a file wherever the link points, outside the directory the output was named in.
    static func checkReplaceable(_ destination: URL, force: Bool) throws {
        guard !force else { return }
        if let target = FileSystemPath.danglingLinkTarget(destination.path) {
            throw ClipKitError.outputFailed(path: destination.path, reason: "is a symbolic link to \(target), which does not exist; --force writes it there")
        }
        guard FileSystemPath.isRegularFile(destination.path), !ClipKitOutput.isFile(destination) else { return }
        throw ClipKitError.outputFailed(path: destination.path, reason: "exists and was not written by clipkit; --force replaces it")
    }

    /// The bytes of the path with `.`, `..` and links resolved: compared as bytes, since Swift
    /// strings that differ only in Unicode normalisation (é and e + U+0301) compare equal.
    static func resolved(_ url: URL) -> [UInt8] {
        FileSystemPath.bytes(FileSystemPath.resolvingLinks(url.standardizedFileURL.path))
    }
}
