// Runs the built clipkit binary: explode's exit codes and stderr lines.
import Foundation
import Testing
import TestSupport

@Suite struct ExplodeCommandTests {
    func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, stderr: String) {
        let result = try CLI.run(arguments, in: directory)
        return (result.status, result.stderr)
    }

    @Test func exitCodesAndWarnings() throws {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary.path), "no clipkit at \(CLI.binary.path)")
        let scratch = Fixture.scratchDirectory()
        let truncated = Fixture.url("gif/truncated.gif").path

        // Damage decoded around: a warning line, exit 0, ./NAME.frames written.
        let damaged = try run(["explode", truncated], in: scratch)
        #expect(damaged.status == 0)
        #expect(damaged.stderr.hasPrefix("clipkit: warning: \(truncated): "))
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("truncated.frames/frames.json").path))

        // One bad input among good ones: exit 1, the good one still written.
        let mixed = try run(["explode", Fixture.url("gif/not_a_gif.gif").path, Fixture.url("gif/loop_zero.gif").path, "-o", "many"], in: scratch)
        #expect(mixed.status == 1)
        #expect(mixed.stderr.contains("not_a_gif.gif"))
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("many/loop_zero.frames/frame_0002.png").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("many/not_a_gif.frames").path))

        // Usage errors: exit 2, nothing written.
        let usage = try run(["explode", truncated, "--frames", "3-1", "-o", "nothing"], in: scratch)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--frames"))
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("nothing").path))
    }
}
