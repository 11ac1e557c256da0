// The temp files and directories being written right now, so an interrupted run can remove them.
import Foundation

/// Removes every unfinished output (temp files and staging directories) of this process and
/// refuses new ones. For a signal handler's clean-up (SIGINT/SIGTERM/SIGHUP) before exiting.
public func removeUnfinishedOutputs() {
    TempFileRegistry.shared.removeAll()
}

/// Creation happens under the same lock as removal, so a signal arriving between creating a
/// temp file and registering it cannot leave the file behind.
final class TempFileRegistry: Sendable {
    static let shared = TempFileRegistry()

    private struct Entries: Sendable {
        var files = Set<String>()
        var directories = Set<String>()
        var closed = false
        /// Directories already swept for stale temp files by this process.
        var swept = Set<String>()
    }

    /// A temp file or staging directory of clipkit's naming untouched this long was left by a run
    /// that was killed (SIGKILL, out of memory): the next run into that directory removes it.
    static let staleAge: TimeInterval = 15 * 60

    /// Removes stale temp outputs in `directory` (once per process per directory): names
    /// `.NAME.clipkit-XXXXXX` (six characters, as mkstemp makes them) not modified for `staleAge`.
    func sweep(_ directory: String) {
        guard entries.withLock({ $0.swept.insert(directory).inserted }) else { return }
        guard let names = FileSystemPath.contents(of: directory) else { return }
        let now = Date().timeIntervalSince1970
        for name in names where name.hasPrefix(".") {
            guard let marker = name.range(of: ".clipkit-", options: .backwards),
                  name[marker.upperBound...].count == 6, !name[marker.upperBound...].contains(".") else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(FileSystemPath.cString(path), &info) == 0, now - Double(info.st_mtim.tv_sec) > Self.staleAge else { continue }
            // Ours right now (this process) are never stale; others' are old enough to be dead.
            if entries.withLock({ $0.files.contains(path) || $0.directories.contains(path) }) { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: unlink(FileSystemPath.cString(path))
            case S_IFDIR: FileSystemPath.removeTree(path)
            default: continue
            }
        }
    }

    private let entries = LockedBox(Entries())

    /// `mkstemp(template)`, registered; nil (with `errno` set) on failure or after `removeAll()`.
    func makeFile(template: String) -> (Int32, String)? {
        sweep((template as NSString).deletingLastPathComponent)
        return entries.withLock { entries -> (Int32, String)? in
            if entries.closed { errno = EINTR; return nil }
            var bytes = FileSystemPath.cString(template)
            let fd = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { return nil }
            let path = bytes.withUnsafeBufferPointer { FileSystemPath.string(cString: $0.baseAddress!) }
            entries.files.insert(path)
            return (fd, path)
        }
    }

    /// `mkdtemp(template)`, registered; nil (with `errno` set) on failure or after `removeAll()`.
    func makeDirectory(template: String) -> String? {
        sweep((template as NSString).deletingLastPathComponent)
        return entries.withLock { entries -> String? in
            if entries.closed { errno = EINTR; return nil }
            var bytes = FileSystemPath.cString(template)
            guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
            let path = bytes.withUnsafeBufferPointer { FileSystemPath.string(cString: $0.baseAddress!) }
            entries.directories.insert(path)
            return path
        }
    }

    /// Forgets a temp file (renamed into place, or removed by its owner).
    func remove(_ path: String) { entries.withLock { _ = $0.files.remove(path) } }

    /// Forgets a temp directory (renamed into place, or removed by its owner).
    func removeDirectory(_ path: String) { entries.withLock { _ = $0.directories.remove(path) } }

    /// `rename(from, to)` of a registered temp file or directory, under the lock and only before
    /// `removeAll()` (else -1, `errno` EINTR); `from` is forgotten once renamed.
    func renameWhileOpen(_ from: String, to: String) -> Int32 {
        entries.withLock { entries -> Int32 in
            if entries.closed { errno = EINTR; return -1 }
            let status = rename(FileSystemPath.cString(from), FileSystemPath.cString(to))
            if status == 0 { _ = entries.files.remove(from); _ = entries.directories.remove(from) }
            return status
        }
    }

    /// Removes every temp file and directory still open and refuses new ones. A directory is
    /// first renamed aside (to a name of the same form, swept if this process dies first), so
    /// what the run still writes into it while it is removed goes nowhere.
    func removeAll() {
        entries.withLock { entries in
            entries.closed = true
            for path in entries.files { unlink(FileSystemPath.cString(path)) }
            for path in entries.directories {
                var template = FileSystemPath.cString((path as NSString).deletingLastPathComponent + "/.removed.clipkit-XXXXXX")
                let aside = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!).map { FileSystemPath.string(cString: $0) } }
                if let aside, rename(FileSystemPath.cString(path), FileSystemPath.cString(aside)) == 0 {
                    FileSystemPath.removeTree(aside)
                } else {
                    if let aside { rmdir(FileSystemPath.cString(aside)) }
                    FileSystemPath.removeTree(path)
                }
            }
            entries.files.removeAll()
            entries.directories.removeAll()
        }
    }
}
