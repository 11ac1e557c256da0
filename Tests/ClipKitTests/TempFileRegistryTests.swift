// TempFileRegistry: a signal's cleanup and renames into place exclude each other.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

/// A signal's cleanup and a staging directory's rename into place exclude each other: after
/// `removeAll()` nothing is renamed, and what was written into the directory is gone with it
/// (a report stopped by SIGTERM while it copied was renamed into place half removed).
@Suite struct TempFileRegistryTests {
    @Test func nothingIsRenamedIntoPlaceOnceCleanupRan() throws {
        let registry = TempFileRegistry()
        let dir = Fixture.scratchDirectory()
        let staged = try #require(registry.makeDirectory(template: dir.path + "/.out.clipkit-XXXXXX"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: staged + "/a.txt"))
        let other = try #require(registry.makeDirectory(template: dir.path + "/.more.clipkit-XXXXXX"))
        #expect(registry.renameWhileOpen(other, to: dir.path + "/more") == 0)
        registry.removeAll()
        #expect(registry.renameWhileOpen(staged, to: dir.path + "/out") == -1 && errno == EINTR)
        #expect((FileSystemPath.contents(of: dir.path) ?? []).sorted() == ["more"], "the renamed one stays, the other is gone: \((FileSystemPath.contents(of: dir.path) ?? []).sorted())")
        #expect(registry.makeDirectory(template: dir.path + "/.late.clipkit-XXXXXX") == nil)
    }
}
