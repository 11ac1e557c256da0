// A hidden directory beside an output directory (explode, storyboard) that becomes it when complete; replaces only clipkit's own output.
import Foundation

/// Built beside the target and renamed into place by `commit()`; removed with everything in it
/// if dropped before that (or on SIGINT/SIGTERM, through `TempFileRegistry`).
final class StagingDirectory {
    let url: URL
    private let target: URL
    private var committed = false
    /// The mode and owner of the directory already at `target`, which the staged one takes.
    private var existing: (mode: mode_t, owner: uid_t, group: gid_t)?

    /// Refuses a `target` that is a file, or a non-empty directory unless it is provably an
    /// earlier output of this `kind` (see `checkReplaceable`) and either `force` is set or its
    /// manifest records a fingerprint (an out-of-date output, redone as a rerun redoes a GIF).
    /// `inputs` are never inside a replaced directory.
    init(for target: URL, force: Bool, inputs: [URL], kind: OutputDirectoryKind = .frames) throws {
        self.target = target
        let path = target.path
        var info = stat()
        if lstat(FileSystemPath.cString(path), &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ClipKitError.outputFailed(path: path, reason: "exists and is not a directory")
            }
            existing = (info.st_mode & 0o7777, info.st_uid, info.st_gid)
            let contents = try Self.contents(of: path)
            if !contents.isEmpty {
                guard force || kind.recordedFingerprint(target) != nil else {
                    throw ClipKitError.outputFailed(path: path, reason: "directory is not empty (--force replaces an earlier \(kind.command)'s output)")
                }
                try Self.checkReplaceable(target, contents: contents, inputs: inputs, kind: kind)
            }
        }
        let parent = target.deletingLastPathComponent()
        do {
            try FileSystemPath.createDirectories(parent.path)
        } catch {
            throw ClipKitError.cannotCreateDirectory(parent.path, error)
        }
        url = try Self.makeTemporary(in: parent, name: target.lastPathComponent, target: path)
        // The finished directory gets the mode an ordinary mkdir would give, not mkdtemp's 0700
        // (one that replaces a directory takes that one's at `commit()`).
        chmod(FileSystemPath.cString(url.path), 0o777 & ~Self.umask)
    }

    /// The process's umask, read without changing it (umask(2) can only set it, which would race
    /// with other threads creating files).
    static let umask: mode_t = {
        // Through FileHandle: Foundation's String(contentsOfFile:) leaks its buffer on /proc files.
        let handle = FileHandle(forReadingAtPath: "/proc/self/status")
        defer { try? handle?.close() }
        let status = String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            if let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) { return value }
        }
        return 0o022
    }()

    deinit {
        if !committed { FileSystemPath.removeTree(url.path) }
        TempFileRegistry.shared.removeDirectory(url.path)
    }

    /// An existing directory may be replaced only when all of this holds: it holds the manifest
    /// of `kind` that clipkit wrote (its `format` mark), every other entry is a regular file that
    /// manifest lists, it is not the current directory, and no input is inside it (or is it).
    static func checkReplaceable(_ target: URL, contents: [String], inputs: [URL], kind: OutputDirectoryKind = .frames) throws {
        let path = target.path
        func refuse(_ reason: String) -> ClipKitError {
            .outputFailed(path: path, reason: "\(reason); --force only replaces a directory an earlier \(kind.command) wrote")
        }
        let real = URL(fileURLWithPath: FileSystemPath.resolvingLinks(target.path)).standardizedFileURL.path
        let current = URL(fileURLWithPath: FileSystemPath.resolvingLinks(FileSystemPath.currentDirectory)).standardizedFileURL.path
        if real == current || current.hasPrefix(real + "/") {
            throw refuse("it is the current directory or contains it")
        }
        for input in inputs {
            let inputPath = URL(fileURLWithPath: FileSystemPath.resolvingLinks(input.path)).standardizedFileURL.path
            if inputPath == real || inputPath.hasPrefix(real + "/") { throw refuse("it holds an input (\(input.path))") }
        }
        guard contents.contains(kind.manifestName), let listed = kind.ownedFiles(target) else {
            throw refuse("it holds no \(kind.manifestName) written by clipkit")
        }
        for name in contents {
            var info = stat()
            guard listed.contains(name), lstat(FileSystemPath.cString(path + "/" + name), &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw refuse("it holds \(name), which its \(kind.manifestName) does not list")
            }
        }
    }

    /// `error` naming the output the user asked for (`target` or a file in it) instead of the
    /// hidden staging directory it was being built in.
    static func userFacing(_ error: any Error, target: URL) -> any Error {
        guard case ClipKitError.outputFailed(let path, let reason) = error,
              path.contains("/.\(target.lastPathComponent)"), path.contains(".clipkit-") else { return error }
        let file = URL(fileURLWithPath: path).lastPathComponent
        let isStagingItself = file.hasPrefix(".") && file.contains(".clipkit-")
        return ClipKitError.outputFailed(path: isStagingItself ? target.path : target.appendingPathComponent(file).path, reason: reason)
    }

    private static func contents(of path: String) throws -> [String] {
        guard let names = FileSystemPath.contents(of: path) else {
            throw ClipKitError.outputFailed(path: path, reason: "cannot list the directory")
        }
        return names
    }

    /// Puts the staged directory where the target is, replacing an empty or (checked in `init`)
    /// earlier output directory.
    func commit() throws {
        // A directory that replaces one keeps its mode and owner, once written (an empty shared
        // directory of mode 1777 the user made came back as 0755).
        if let existing {
            _ = chown(FileSystemPath.cString(url.path), existing.owner, existing.group)
            chmod(FileSystemPath.cString(url.path), existing.mode)
        }
        try Self.moveIntoPlace(url, target: target)
        committed = true
    }

    /// Renames the complete directory `staged` to `target`, replacing an empty or earlier output
    /// directory there (whoever stages it has checked that it may), and unregisters it.
    static func moveIntoPlace(_ staged: URL, target: URL) throws {
        let path = target.path
        // Under the registry's lock and only while it is open: a signal's cleanup (`removeAll`)
        // either comes first, and nothing is renamed, or after, and the directory is whole. (A
        // report stopped by SIGTERM while it copied 20,000 files was renamed into place half
        // removed, its page naming media that were gone.)
        if TempFileRegistry.shared.renameWhileOpen(staged.path, to: path) != 0 {
            guard errno == ENOTEMPTY || errno == EEXIST else {
                throw ClipKitError.outputFailed(path: path, reason: String(cString: strerror(errno)))
            }
            // rename(2) replaces only empty directories: move the old one aside first.
            let old = try makeTemporary(in: target.deletingLastPathComponent(), name: target.lastPathComponent + ".old", target: path)
            guard rename(FileSystemPath.cString(path), FileSystemPath.cString(old.path)) == 0 else {
                let reason = String(cString: strerror(errno))
                FileSystemPath.removeTree(old.path)
                throw ClipKitError.outputFailed(path: path, reason: reason)
            }
            guard TempFileRegistry.shared.renameWhileOpen(staged.path, to: path) == 0 else {
                let reason = String(cString: strerror(errno))
                _ = rename(FileSystemPath.cString(old.path), FileSystemPath.cString(path))
                throw ClipKitError.outputFailed(path: path, reason: reason)
            }
            FileSystemPath.removeTree(old.path)
            TempFileRegistry.shared.removeDirectory(old.path)
        }
        TempFileRegistry.shared.removeDirectory(staged.path)
    }

    static func makeTemporary(in parent: URL, name: String, target: String) throws -> URL {
        // Registered so that SIGINT/SIGTERM removes it with everything written so far.
        guard let made = TempFileRegistry.shared.makeDirectory(template: parent.path + "/" + AtomicFile.temporaryName(for: name)) else {
            throw ClipKitError.outputFailed(path: target, reason: String(cString: strerror(errno)))
        }
        return URL(fileURLWithPath: made, isDirectory: true)
    }
}
