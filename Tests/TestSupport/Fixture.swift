// Shared by both test targets: locates files in Fixtures/ and makes scratch directories.
import Foundation

public enum Fixture {
    /// The repository root, found from this file's path.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Fixtures/<relative>`.
    public static func url(_ relative: String) -> URL {
        root.appendingPathComponent("Fixtures").appendingPathComponent(relative)
    }

    /// A new empty directory under the system temp directory.
    public static func scratchDirectory(_ name: String = #function) -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("clipkit-tests-\(safe)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
