// What `-o` may name besides a new file: a symbolic link (written through; one to nothing only with --force), a file clipkit did not write (only with --force), a device.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

@Suite struct OutputLinkTests {
    static let clip = Fixture.url("video/counter.mp4")

    /// A link is written through: the file it names gets the output, the link stays a link.
    /// (The rename used to replace the link itself with the file.)
    @Test func aSymbolicLinkIsWrittenThroughAndStays() throws {
        let dir = Fixture.scratchDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("store"), withIntermediateDirectories: true)
        #expect(symlink("store/latest.gif", dir.appendingPathComponent("preview.gif").path) == 0)
        for _ in 0..<2 {  // the first run makes the file the link names, the second replaces it
            let run = try CLI.run(["gif", Self.clip.path, "-o", "preview.gif", "--force", "-q"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Tree.fileType(dir.appendingPathComponent("preview.gif").path) == S_IFLNK)
            let gif = try Decoded.gif(dir.appendingPathComponent("store/latest.gif"))
            #expect(gif.delays.count == 40)
        }
    }

    /// A link to nothing is refused without `--force`: writing through it would make a file
    /// wherever it points (here outside the directory the output was named in). Nothing is
    /// made, the link stays; with `--force` the file is made where the link points.
    @Test func aDanglingLinkIsWrittenThroughOnlyWithForce() throws {
        let dir = Fixture.scratchDirectory()
        let work = dir.appendingPathComponent("work"), outside = dir.appendingPathComponent("outside")
        for made in [work, outside] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        for (arguments, name) in [(["gif", Self.clip.path], "a.gif"), (["thumb", Self.clip.path], "a.png"),
                                  (["gif", Self.clip.path, "-o", "b.gif", "--poster"], "a.png")] {
            #expect(symlink("../outside/" + name, work.appendingPathComponent(name).path) == 0)
            let refused = try CLI.run(arguments + (arguments.last == "--poster" ? [name] : ["-o", name]) + ["-q"], in: work)
            #expect(refused.status == 1 && refused.stderrLines.count == 1, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("\(work.appendingPathComponent(name).path): is a symbolic link to \(outside.appendingPathComponent(name).path), which does not exist; --force writes it there"),
                    "\(refused.stderr)")
            #expect(Tree.walk(outside).isEmpty && Tree.fileType(work.appendingPathComponent(name).path) == S_IFLNK)
            let forced = try CLI.run(arguments + (arguments.last == "--poster" ? [name] : ["-o", name]) + ["-q", "--force"], in: work)
            #expect(forced.status == 0, "\(arguments): \(forced.stderr)")
            #expect(Tree.walk(outside) == [name] && Tree.fileType(work.appendingPathComponent(name).path) == S_IFLNK)
            try FileManager.default.removeItem(at: outside.appendingPathComponent(name))
            try FileManager.default.removeItem(at: work.appendingPathComponent(name))
            try? FileManager.default.removeItem(at: work.appendingPathComponent("b.gif"))
        }
    }

    /// An output file clipkit did not write (no fingerprint in it) is not replaced without
    /// `--force`: that input fails in one line naming it and the file keeps its bytes; what
    /// clipkit wrote, assembled GIFs included, a rerun replaces. (`clipkit gif b.mp4` replaced
    /// a `b.gif` of the user's own.)
    @Test func aFileClipkitDidNotWriteIsReplacedOnlyWithForce() throws {
        let dir = Fixture.scratchDirectory()
        let mine = Data("my own bytes\n".utf8)
        let frames = [Fixture.url("video/still.png").path, Fixture.url("video/still.png").path]
        for (arguments, output) in [(["gif", Self.clip.path], "counter.gif"), (["thumb", Self.clip.path], "counter.png"),
                                    (["gif", Self.clip.path, "-o", "a.gif", "--poster", "p.png"], "p.png"),
                                    (["gif", Self.clip.path, "-o", "a.webp"], "a.webp"), (["gif"] + frames + ["-o", "f.gif"], "f.gif")] {
            let target = dir.appendingPathComponent(output)
            try mine.write(to: target)
            let refused = try CLI.run(arguments + ["-q"], in: dir)
            #expect(refused.status == 1 && refused.stderrLines.count == 1, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("\(target.path): exists and was not written by clipkit; --force replaces it"), "\(refused.stderr)")
            #expect(try Data(contentsOf: target) == mine)
            let forced = try CLI.run(arguments + ["-q", "--force"], in: dir)
            #expect(forced.status == 0, "\(arguments): \(forced.stderr)")
            #expect(try Data(contentsOf: target) != mine)
            // Now clipkit's own: a rerun replaces it (or finds it up to date).
            let again = try CLI.run(arguments + ["-q", "--width", "32"], in: dir)
            #expect(again.status == 0, "\(arguments): \(again.stderr)")
        }
    }

    /// A character device is written into, never replaced: /dev/null takes the output (exit 0),
    /// /dev/full refuses it (exit 1, one line). Reached through links, so the test needs no mknod;
    /// before, the link was replaced by a file and /dev/full reported success.
    @Test(arguments: [("thumb", "t.png"), ("gif", "g.gif")])
    func aDeviceIsWrittenIntoNotReplaced(_ command: String, _ name: String) throws {
        let dir = Fixture.scratchDirectory("device-\(command)")
        let null = dir.appendingPathComponent("null-" + name).path, full = dir.appendingPathComponent("full-" + name).path
        #expect(symlink("/dev/null", null) == 0)
        #expect(symlink("/dev/full", full) == 0)
        let fine = try CLI.run([command, Self.clip.path, "-o", null, "-q"], in: dir)
        #expect(fine.status == 0, "\(fine.stderr)")
        let failed = try CLI.run([command, Self.clip.path, "-o", full, "-q"], in: dir)
        #expect(failed.status == 1)
        #expect(failed.stderr == "clipkit: \(Self.clip.path): cannot write output: \(full): No space left on device\n", "\(failed.stderr)")
        for link in [null, full] { #expect(Tree.fileType(link) == S_IFLNK) }
        #expect(Tree.fileType("/dev/null") == S_IFCHR && Tree.fileType("/dev/full") == S_IFCHR)
        // Nothing left beside them, nor in the temp directory's name pattern for this output.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "\(left)")
    }

    /// `-o /dev/stdout` with standard output a pipe: the bytes go down the pipe (open() follows
    /// /proc/self/fd/1 to "pipe:[...]", which no path spells) and /dev/stdout stays a link.
    @Test func devStdoutIsWrittenThrough() throws {
        let dir = Fixture.scratchDirectory()
        let run = try CLI.run(["thumb", Self.clip.path, "-o", "/dev/stdout", "-q"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("PNG") && run.stdout.contains("IHDR") && run.stdout.contains("IEND"))
        #expect(Tree.fileType("/dev/stdout") == S_IFLNK)
    }
}
