// What `-o` may name besides a file (links, devices and files clipkit did not write: OutputLinkTests): a pipe, standard output, a name for another format; and a failed run leaves no directory it made.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

@Suite struct OutputPathTests {
    static let clip = Fixture.url("video/counter.mp4")

    /// An output file named for a format the command does not write is bad usage: `thumb -o
    /// poster.webp` wrote PNG bytes under a .webp name (as .jpg did, now a JPEG), `gif -o
    /// clip.txt` a GIF. Names without an extension, any case of the known ones, directories and
    /// devices are taken as they are.
    @Test func anOutputNamedForAnotherFormatIsBadUsage() throws {
        let dir = Fixture.scratchDirectory()
        let refused = [(["thumb", Self.clip.path, "-o", "poster.webp"], "poster.webp is named .webp, a format this command does not write; name it .png, .jpg or .jpeg"),
                       (["gif", Self.clip.path, "-o", "clip.txt"], "clip.txt is named .txt, a format this command does not write; name it .gif, .webp, .mp4 or .m4v")]
        for (arguments, reason) in refused {
            let run = try CLI.run(arguments, in: dir)
            #expect(run.status == 2 && run.stderr == "clipkit: -o: \(reason)\n", "\(run.stderr)")
        }
        #expect(CLI.files(in: dir).isEmpty)
        for arguments in [["thumb", Self.clip.path, "-o", "poster"], ["thumb", Self.clip.path, "-o", "P.PNG"], ["gif", Self.clip.path, "-o", "clip"],
                          ["gif", Self.clip.path, "-o", "c.M4V", "--width", "32"], ["gif", Self.clip.path, "-o", "/dev/null"],
                          // A suffix that names no format is part of the name.
                          ["thumb", Self.clip.path, "-o", "shot.v2"], ["gif", Self.clip.path, "-o", "anim.2024-01-01"]] {
            let run = try CLI.run(arguments + ["-q"], in: dir)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        // A name that is all extension is that format: `.webp` an animated WebP, `.jpg` a JPEG.
        #expect(try CLI.run(["gif", Self.clip.path, "-o", ".webp", "--width", "32", "-q"], in: dir).status == 0)
        #expect(try Data(contentsOf: dir.appendingPathComponent(".webp")).prefix(4) == Data("RIFF".utf8))
        #expect(try CLI.run(["thumb", Self.clip.path, "-o", ".jpg", "-q"], in: dir).status == 0)
        #expect(try Data(contentsOf: dir.appendingPathComponent(".jpg")).prefix(2) == Data([0xFF, 0xD8]))
    }

    /// Standard error that cannot be written (`2>/dev/full`, `2>&-`, a pipe whose reader is gone)
    /// costs what it would have said, never the run: Foundation's write trapped, so the first
    /// error, warning, usage message or summary line ended clipkit with "Illegal instruction"
    /// (status 132), a batch at its first failed input with the inputs after it not written.
    @Test func anUnwritableStandardErrorIsNoCrash() throws {
        let dir = Fixture.scratchDirectory()
        let bad = dir.appendingPathComponent("bad.mp4")
        try Data("not a video".utf8).write(to: bad)
        let second = dir.appendingPathComponent("second.mp4")
        try FileManager.default.copyItem(at: Self.clip, to: second)
        let broken = Pipe()
        try broken.fileHandleForReading.close()
        let sinks: [(String, () -> FileHandle?)] = [("full", { FileHandle(forWritingAtPath: "/dev/full") }),
                                                    ("broken pipe", { broken.fileHandleForWriting })]
        for (name, sink) in sinks {
            let out = dir.appendingPathComponent("out-\(name)")
            // A batch: the bad input's error line and the summary lines go nowhere, the rest is written.
            let batch = try CLI.run(["gif", Self.clip.path, bad.path, second.path, "-o", out.path + "/", "--width", "32"], in: dir,
                                    standardError: sink())
            #expect(batch.status == 1, "\(name)")
            #expect(CLI.files(in: out) == [Self.clip.deletingPathExtension().lastPathComponent + ".gif", "second.gif"], "\(name)")
            let warned = try CLI.run(["info", bad.path], in: dir, standardError: sink())
            #expect(warned.status == 1, "\(name)")
            let usage = try CLI.run(["gif", "--fps", "0", Self.clip.path], in: dir, standardError: sink())
            #expect(usage.status == 2, "\(name)")
            let fine = try CLI.run(["thumb", Self.clip.path, "-o", out.appendingPathComponent("t.png").path], in: dir, standardError: sink())
            #expect(fine.status == 0, "\(name)")
        }
        // Closed (`2>&-`, through a shell): the same batch, and stdout closed too (`>&-`) fails
        // the JSON lines' inputs as "stdout was closed" instead of writing them anywhere else.
        let closed = dir.appendingPathComponent("out-closed").path
        let shell = "\"$0\" gif \"$1\" \"$2\" \"$3\" -o \"$4/\" --width 32 2>&-"
        #expect(try CLI.runTool("/bin/sh", ["-c", shell, CLI.binary.path, Self.clip.path, bad.path, second.path, closed]) == 1)
        #expect(CLI.files(in: URL(fileURLWithPath: closed)) == [Self.clip.deletingPathExtension().lastPathComponent + ".gif", "second.gif"])
        let json = "\"$0\" info --json \"$1\" >&- 2>&-"
        #expect(try CLI.runTool("/bin/sh", ["-c", json, CLI.binary.path, Self.clip.path]) == 1)
    }

    /// Standard output that fails (`> /dev/full`) is named as it is, with the input, in one line:
    /// it was "stdout was closed" (info, batches) or nothing at all (`gif --json`).
    @Test(arguments: [["info", "--json"], ["gif", "-o", "a.gif", "--json", "--force"], ["thumb", "-o", "a.png", "--json", "--force"]])
    func aFullStandardOutputIsNamed(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory("fullStdout-\(arguments[0])")
        let run = try CLI.run([arguments[0], Self.clip.path] + arguments.dropFirst(), in: dir,
                              standardOutput: FileHandle(forWritingAtPath: "/dev/full"))
        #expect(run.status == 1)
        #expect(run.stderr == "clipkit: \(Self.clip.path): cannot write to standard output: No space left on device\n", "\(run.stderr)")
    }

    /// An output that cannot be written fails its input in one line that starts with the input,
    /// then names the output, whichever output of whichever command met it (a link to /dev/full
    /// stands for a full disk, a directory command's `-o` for one it cannot make): these named
    /// the output alone ("clipkit: full.png: cannot write output: ..."), unlike every other
    /// failure of an input. The input is named once, as its other failures name it.
    @Test(arguments: [["gif", "video/counter.mp4", "-o", "full.gif"], ["gif", "video/counter.mp4", "-o", "a.gif", "--poster", "full.png"],
                      ["gif", "video/counter.mp4", "-o", "full.webp"], ["gif", "video/counter.mp4", "-o", "a.gif", "-o", "full.mp4"],
                      ["gif", "gif/loop_five.gif", "-o", "full.gif"], ["thumb", "video/counter.mp4", "-o", "full.png"],
                      ["thumb", "video/counter.mp4", "-o", "full.png", "--pick", "best"], ["explode", "gif/loop_five.gif", "-o", "full"],
                      ["storyboard", "video/counter.mp4", "-o", "full"], ["gif", "ssimulacra2/gradient.png", "-o", "full.gif"],
                      ["gif", "video/counter.mp4", "-o", "full.gif", "--json"]])
    func anOutputThatCannotBeWrittenNamesTheInputFirst(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory("unwritable-\(arguments[0])")
        for name in ["full.gif", "full.png", "full.webp", "full.mp4", "full"] {
            #expect(symlink("/dev/full", dir.appendingPathComponent(name).path) == 0)
        }
        let input = Fixture.url(arguments[1]).path
        let run = try CLI.run([arguments[0], input] + arguments.dropFirst(2) + ["-q"], in: dir)
        #expect(run.status == 1)
        let failure = run.stderrLines.filter { !$0.hasPrefix("{") }
        let full = arguments.last { $0.hasPrefix("full") }!
        #expect(failure.count == 1 && failure[0].hasPrefix("clipkit: \(input): cannot write output: ")
                && failure[0].contains(full) && failure[0].components(separatedBy: input).count == 2, "\(run.stderr)")
        if arguments.contains("--json") {
            #expect(run.stderrLines.count == 1 && run.stdout.contains("\"status\":\"error\"")
                    && run.stdout.contains("\"error\":\"\(failure.first?.dropFirst("clipkit: ".count) ?? "")\""), "\(run.stdout)")
        }
    }

    /// A directory an output needs that cannot be made says why (the system's reason), not only
    /// "cannot create directory": here under a link to /dev/full, "Not a directory". The line
    /// names the input first, as the input's other failures do (`-o DIR/` was named alone).
    @Test(arguments: [["explode", "gif/loop_five.gif", "-o", "full/"], ["thumb", "video/counter.mp4", "--pick", "best", "--count", "2", "-o", "full/x/"],
                      ["storyboard", "video/counter.mp4", "-o", "full/board"], ["gif", "video/counter.mp4", "-o", "full/a.gif"],
                      ["gif", "video/counter.mp4", "-o", "full/"], ["thumb", "video/counter.mp4", "-o", "full/"],
                      ["storyboard", "video/counter.mp4", "-o", "full/"]])
    func aDirectoryThatCannotBeMadeSaysWhy(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory("no-directory-\(arguments.joined(separator: "-").replacingOccurrences(of: "/", with: "_"))")
        #expect(symlink("/dev/full", dir.appendingPathComponent("full").path) == 0)
        let input = Fixture.url(arguments[1]).path
        let run = try CLI.run([arguments[0], input] + arguments.dropFirst(2) + ["-q"], in: dir)
        #expect(run.status == 1 && run.stderrLines.count == 1 && run.stderr.contains("Not a directory")
                && run.stderr.hasPrefix("clipkit: \(input): cannot write output: ") && run.stderr.contains("full"), "\(run.stderr)")
    }

    /// Several inputs into an existing file are a usage error (exit 2), as `-o two.png` is, and
    /// the file is left alone (it was exit 1).
    @Test func severalInputsIntoAFileAreAUsageError() throws {
        let dir = Fixture.scratchDirectory()
        let notes = dir.appendingPathComponent("notes.txt")
        try Data("mine\n".utf8).write(to: notes)
        let clip = Fixture.url("video/counter.mp4").path
        for output in ["notes.txt", "notes.txt/"] {
            let run = try CLI.run(["thumb", clip, Fixture.url("video/motion.mp4").path, "-o", output, "-q"], in: dir)
            #expect(run.status == 2 && run.stderrLines.count == 1 && run.stderr.contains("need a directory"), "\(output): \(run.stderr)")
        }
        #expect(try Data(contentsOf: notes) == Data("mine\n".utf8))
    }

    /// Standard input is named `-` there too, not the private copy it was read into.
    @Test func anOutputThatCannotBeWrittenNamesStandardInput() throws {
        let dir = Fixture.scratchDirectory()
        #expect(symlink("/dev/full", dir.appendingPathComponent("full.png").path) == 0)
        let run = try Spawn.run("/bin/sh", ["-c", "exec \"$0\" thumb - -o full.png < \"$1\"", CLI.binary.path, Self.clip.path],
                                in: dir, killAfter: 30)
        #expect(run.exitStatus == 1)
        #expect(run.stderr == "clipkit: -: cannot write output: \(dir.path)/full.png: No space left on device\n", "\(run.stderr)")
    }

    /// A GIF rebuilt from exploded frames names its frames.json; a frame that is damaged is
    /// still named itself (it is read, not written).
    /// The frames a manifest lists are inputs: even with --force, the GIF made from them is not
    /// written over one (it replaced `frame_0001.png` with GIF bytes).
    /// An empty directory of the user's that `explode` or `storyboard` fills keeps its mode: a
    /// shared 1777 directory came back 0755 (the finished one renamed over it).
    @Test(arguments: [["explode", "gif/loop_five.gif"], ["storyboard", "video/counter.mp4"]])
    func aDirectoryFilledKeepsItsMode(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory()
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        #expect(chmod(shared.path, 0o1777) == 0)
        let run = try CLI.run([arguments[0], Fixture.url(arguments[1]).path, "-o", "shared/", "-q"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: shared.path)[.posixPermissions] as? Int)
        #expect(mode == 0o1777, "mode \(String(mode, radix: 8))")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: shared.path)).isEmpty)
    }

    /// An output that reaches the input through a link is refused in a line that names the
    /// input first, as its other failures and `--json` do (it named the link alone).
    @Test func anOutputThatIsTheInputNamesTheInput() throws {
        let dir = Fixture.scratchDirectory()
        try FileManager.default.copyItem(at: Fixture.url("video/counter.mp4"), to: dir.appendingPathComponent("a.mp4"))
        #expect(symlink("a.mp4", dir.appendingPathComponent("link.gif").path) == 0)
        let input = dir.appendingPathComponent("a.mp4").path
        let run = try CLI.run(["gif", input, "-o", "link.gif", "--force", "-q"], in: dir)
        #expect(run.status == 1 && run.stderrLines.count == 1 && run.stderr.hasPrefix("clipkit: \(input): ")
                && run.stderr.contains("link.gif would overwrite an input"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == Data(contentsOf: Fixture.url("video/counter.mp4")))
    }

    @Test func aManifestsFramesAreNotOverwritten() throws {
        let dir = Fixture.scratchDirectory()
        #expect(try CLI.run(["explode", Fixture.url("gif/loop_five.gif").path, "-o", "anim.frames", "-q"], in: dir).status == 0)
        let frame = dir.appendingPathComponent("anim.frames/frame_0001.png")
        let before = try Data(contentsOf: frame)
        // Named .png it is bad usage (a GIF is no PNG); through a .gif link, an input.
        let named = try CLI.run(["gif", "anim.frames/frames.json", "-o", "anim.frames/frame_0001.png", "--force", "-q"], in: dir)
        #expect(named.status == 2 && named.stderrLines.count == 1, "\(named.stderr)")
        #expect(symlink("anim.frames/frame_0001.png", dir.appendingPathComponent("frame.gif").path) == 0)
        let run = try CLI.run(["gif", "anim.frames/frames.json", "-o", "frame.gif", "--force", "-q"], in: dir)
        #expect(run.status != 0 && run.stderrLines.count == 1 && run.stderr.contains("would overwrite an input"), "\(run.stderr)")
        #expect(try Data(contentsOf: frame) == before)
    }

    @Test func aRebuiltGIFThatCannotBeWrittenNamesTheManifest() throws {
        let dir = Fixture.scratchDirectory()
        #expect(symlink("/dev/full", dir.appendingPathComponent("full.gif").path) == 0)
        #expect(try CLI.run(["explode", Fixture.url("gif/loop_five.gif").path, "-o", "anim.frames", "-q"], in: dir).status == 0)
        let manifest = dir.appendingPathComponent("anim.frames/frames.json").path
        let run = try CLI.run(["gif", manifest, "-o", "full.gif", "-q"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr == "clipkit: \(manifest): cannot write output: \(dir.path)/full.gif: No space left on device\n", "\(run.stderr)")
        let frame = dir.appendingPathComponent("anim.frames/frame_0001.png")
        try Data("not a PNG".utf8).write(to: frame)
        let damaged = try CLI.run(["gif", manifest, "-o", "out.gif", "-q"], in: dir)
        #expect(damaged.status == 1 && damaged.stderr.hasPrefix("clipkit: \(frame.path): "), "\(damaged.stderr)")
    }

    /// `-o -` into a full standard output: the input fails in one line naming it (exit 1), and
    /// nothing claims the output was written. The copy to standard output came after the run,
    /// so the summary line ("-: 40 frames, ... 8.5 KB") and a --json "ok" came first.
    @Test(arguments: [["gif", "video/counter.mp4"], ["gif", "video/counter.mp4", "--format", "webp"], ["gif", "gif/loop_five.gif"],
                      ["gif", "ssimulacra2/gradient.png"], ["thumb", "video/counter.mp4"], ["gif", "video/counter.mp4", "--json"]])
    func aFullStandardOutputFailsTheInput(_ arguments: [String]) throws {
        let dir = Fixture.scratchDirectory("fullStdoutOutput")
        let input = Fixture.url(arguments[1]).path
        let run = try CLI.run([arguments[0], input, "-o", "-"] + arguments.dropFirst(2), in: dir,
                              standardOutput: FileHandle(forWritingAtPath: "/dev/full"))
        #expect(run.status == 1)
        let failure = "clipkit: \(input): cannot write to standard output: No space left on device"
        if arguments.contains("--json") {
            #expect(run.stderrLines.count == 2 && run.stderrLines.contains { $0.hasPrefix("{") && $0.contains("\"status\":\"error\"") }
                    && run.stderrLines.contains { $0 == failure }, "\(run.stderr)")
        } else {
            #expect(run.stderr == failure + "\n")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// `-o -` with what makes several outputs is refused before any is made (exit 2, nothing on
    /// stdout): a directory of two clips, two formats, three posters. The directory's two GIFs
    /// were made, their summary lines printed, and only then the run refused.
    @Test func severalOutputsForStandardOutputAreRefusedFirst() throws {
        let dir = Fixture.scratchDirectory("severalForStdout")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("clips"), withIntermediateDirectories: true)
        for name in ["a.mp4", "b.mp4"] { try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("clips/" + name)) }
        for arguments in [["gif", "clips", "-o", "-"], ["gif", Self.clip.path, "-o", "-", "--format", "gif,webp"],
                          ["thumb", "clips", "-o", "-", "--jobs", "1"], ["thumb", Self.clip.path, "-o", "-", "--pick", "best", "--count", "3"]] {
            let run = try CLI.run(arguments, in: dir)
            #expect(run.status == 2 && run.stdout.isEmpty && run.stderrLines.count == 1
                    && run.stderr.hasPrefix("clipkit: -o -: standard output takes one output, but "), "\(arguments): \(run.stderr)")
        }
    }

    /// A named pipe: with a reader it gets the whole output; with none, an error at once, not a
    /// wait for a reader that never comes. It stays a pipe either way.
    @Test func aPipeGetsTheOutputOrAnErrorAtOnce() throws {
        let dir = Fixture.scratchDirectory()
        let fifo = dir.appendingPathComponent("out.png").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let lonely = try CLI.run(["thumb", Self.clip.path, "-o", fifo, "-q"], in: dir)
        #expect(lonely.status == 1 && lonely.stderr == "clipkit: \(Self.clip.path): cannot write output: \(fifo): is a pipe no process is reading\n",
                "\(lonely.stderr)")
        #expect(Tree.fileType(fifo) == S_IFIFO)
        // A reader that holds the pipe open while clipkit runs, and keeps what comes.
        let copy = dir.appendingPathComponent("copy.png")
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat \"$0\" > \"$1\"", fifo, copy.path]
        try reader.run()
        let run = try CLI.run(["thumb", Self.clip.path, "-o", fifo, "-q"], in: dir)
        reader.waitUntilExit()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Tree.fileType(fifo) == S_IFIFO)
        let png = try Decoded.png(copy)
        #expect(png.width == 160 && png.height == 120)
    }

    /// A run that writes nothing leaves no directory it made for its outputs (nested ones too);
    /// one that writes something keeps it.
    @Test func aFailedRunLeavesNoOutputDirectory() throws {
        let dir = Fixture.scratchDirectory()
        try Data("not a video".utf8).write(to: dir.appendingPathComponent("bad.mp4"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let runs: [[String]] = [
            ["gif", "bad.mp4", "-o", "out/"], ["gif", "bad.mp4", "-o", "deep/er/"], ["thumb", "empty", "-o", "thumbs/"],
            ["explode", "empty", "-o", "frames"], ["storyboard", "bad.mp4", "-o", "sheets/sb"],
        ]
        for arguments in runs {
            let run = try CLI.run(arguments + ["-q"], in: dir)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["bad.mp4", "empty"], "\(left)")
        // A batch with one good input keeps its directory and output.
        try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("good.mp4"))
        let mixed = try CLI.run(["gif", "good.mp4", "bad.mp4", "-o", "mixed/", "-q"], in: dir)
        #expect(mixed.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("mixed").path) == ["good.gif"])
    }
}
