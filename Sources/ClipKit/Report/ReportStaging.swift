// The report directory built hidden beside its target and renamed into place whole; replaces only a report clipkit wrote.
import Foundation

/// Like `StagingDirectory` (explode, storyboard), but a report holds a `media/` folder, so
/// ownership is checked recursively: every file under an existing target must be listed in its
/// report.json, which must carry clipkit's report mark.
final class ReportStaging {
    let url: URL
    private let target: URL
    private var committed = false

    init(for target: URL, inputs: [URL]) throws {
        self.target = target
        let path = target.path
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw ClipKitError.outputFailed(path: path, reason: "exists and is not a directory") }
            try Self.checkReplaceable(target, inputs: inputs)
        }
        let parent = target.deletingLastPathComponent()
        do {
            try FileSystemPath.createDirectories(parent.path)
        } catch {
            throw ClipKitError.cannotCreateDirectory(parent.path, error)
        }
        url = try StagingDirectory.makeTemporary(in: parent, name: target.lastPathComponent, target: path)
        chmod(url.path, 0o777 & ~StagingDirectory.umask)
    }

    deinit {
        if !committed { try? FileManager.default.removeItem(at: url) }
        TempFileRegistry.shared.removeDirectory(url.path)
    }

    /// Every regular file under `directory`, relative, sorted; nil if anything else is there
    /// (a link, a device), which no report writes.
    static func files(under directory: URL) -> [String]? {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return nil }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var info = stat()
            guard lstat(directory.path + "/" + name, &info) == 0 else { return nil }
            switch info.st_mode & S_IFMT {
            case S_IFREG: files.append(name)
            case S_IFDIR: continue
            default: return nil
            }
        }
        return files.sorted()
    }

    private static func checkReplaceable(_ target: URL, inputs: [URL]) throws {
        guard let files = files(under: target) else {
            throw ClipKitError.outputFailed(path: target.path, reason: "holds something other than files and folders; clipkit report only replaces a report it wrote")
        }
        if files.isEmpty { return }
        let real = ReportBuilder.realPath(target)
        let current = ReportBuilder.realPath(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        if real == current || current.hasPrefix(real + "/") {
            throw ClipKitError.outputFailed(path: target.path, reason: "it is the current directory or contains it")
        }
        for input in inputs where ReportBuilder.realPath(input).hasPrefix(real + "/") {
            throw ClipKitError.outputFailed(path: target.path, reason: "it holds an input (\(input.path))")
        }
        guard let owned = ReportJSON.ownedFiles(in: target) else {
            throw ClipKitError.outputFailed(path: target.path, reason: "directory is not empty and holds no report.json written by clipkit report")
        }
        if let stranger = files.first(where: { !owned.contains(NameBytes($0)) }) {
            throw ClipKitError.outputFailed(path: target.path, reason: "it holds \(stranger), which its report.json does not list; clipkit report only replaces a report it wrote")
        }
    }

    /// Makes `directory` inside the staging directory, which must still be there: never its
    /// parents, so a run whose staging directory a signal's cleanup removed cannot make it
    /// again (`withIntermediateDirectories` did, and the copies after SIGTERM left it behind).
    static func makeDirectory(_ directory: URL) throws {
        guard mkdir(FileSystemPath.cString(directory.path), 0o777) == 0 || errno == EEXIST else {
            throw ClipKitError.outputFailed(path: directory.path, reason: String(cString: strerror(errno)))
        }
    }

    func commit() throws {
        try StagingDirectory.moveIntoPlace(url, target: target)
        committed = true
    }
}
