// The directories this run made for its outputs, so that a run that wrote nothing into them leaves none behind.
import Foundation

/// Every directory `FileSystemPath.createDirectories` made in this process, in the order made.
/// When the run ends, `removeEmpty()` removes those still empty, deepest first: a failed run
/// (`clipkit explode empty-dir -o out/`, every input of `gif a b -o out/` refused) left an empty
/// `out/` behind. Only directories this process created are candidates, and `rmdir` removes
/// nothing that holds a file, whoever put it there.
public enum CreatedDirectories {
    private static let made = LockedBox<[String]>([])

    static func record(_ path: String) {
        made.withLock { $0.append(path) }
    }

    /// Removes the directories made by this run that are empty now (the most recent first, so a
    /// parent made for an empty child goes too).
    public static func removeEmpty() {
        let paths = made.withLock { made -> [String] in
            defer { made.removeAll() }
            return made
        }
        for path in paths.reversed() { rmdir(FileSystemPath.cString(path)) }
    }
}
