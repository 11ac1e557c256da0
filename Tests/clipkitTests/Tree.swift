// What a test finds on disk after a run: every path under a directory, and the outputs among them.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

enum Tree {
    /// Every path under `root`, relative and sorted, hidden ones included; symbolic links are
    /// listed but never followed (a scratch directory may hold a link to /).
    static func walk(_ root: URL) -> [String] {
        var result: [String] = []
        func visit(_ relative: String) {
            let path = relative.isEmpty ? root.path : root.path + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names.sorted() {
                let child = relative.isEmpty ? name : relative + "/" + name
                result.append(child)
                if isDirectory(root.path + "/" + child) { visit(child) }
            }
        }
        visit("")
        return result
    }

    /// A real directory (not a link to one).
    static func isDirectory(_ path: String) -> Bool {
        fileType(path) == S_IFDIR
    }

    /// The type bits of what `path` is itself (a link is a link), nil when nothing is there.
    static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// Paths under `root` (clipkit keeps nothing beside its outputs).
    static func outputs(_ root: URL) -> [String] {
        walk(root)
    }

    /// Hidden temp files and staging directories clipkit left (`.*.clipkit-*`).
    static func leftoverTemps(_ root: URL) -> [String] {
        walk(root).filter { fnmatch(".*.clipkit-*", ($0 as NSString).lastPathComponent, 0) == 0 }
    }

    /// Contents of every regular file under `root`, by relative path (links not followed).
    static func snapshot(_ root: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        for path in walk(root) {
            let full = root.path + "/" + path
            var info = stat()
            guard lstat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                result[path] = Data()
                continue
            }
            result[path] = (try? Data(contentsOf: URL(fileURLWithPath: full))) ?? Data()
        }
        return result
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
