// The situations Fixtures/hostile/README.md lists to be made at test time (symlink loops, odd
// names, a closed stdout, ...), every command in each.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

extension Hostile {
    @Suite struct Situations {
        static let clip = Fixture.url("video/counter.mp4")

        /// A tree with two real clips and a link of the given kind.
        static func linkedTree(_ kind: String, in dir: URL) throws -> URL {
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: clip, to: media.appendingPathComponent("a.mp4"))
            try FileManager.default.copyItem(at: Fixture.url("video/rotated90.mov"), to: media.appendingPathComponent("sub/b.mov"))
            func link(_ name: String, _ target: String) { #expect(symlink(target, media.appendingPathComponent(name).path) == 0) }
            switch kind {
            case "loop":  // media/loop -> media
                link("loop", ".")
            case "self":  // media/sub/self -> ../sub
                link("sub/self", "../sub")
            case "mutual":  // media/x -> y, media/y -> x
                link("x", "y")
                link("y", "x")
            case "root":  // media/root -> /
                link("root", "/")
            case "outside":  // media/out -> ../outside, which holds a clip
                let outside = dir.appendingPathComponent("outside")
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: clip, to: outside.appendingPathComponent("o.mp4"))
                link("out", "../outside")
            default:
                link("loop", ".")
                link("sub/self", "../sub")
                link("x", "y")
                link("y", "x")
                link("root", "/")
            }
            return media
        }

        /// `-r` over a tree with symlink loops, mutual links or a link to /: ends quickly, converts
        /// each real file once and nothing outside the tree.
        @Test(arguments: ["loop", "self", "mutual", "root", "outside", "all"])
        func recursiveScanSurvivesSymlinks(_ kind: String) throws {
            let dir = Fixture.scratchDirectory("symlinks-\(kind)")
            let media = try Self.linkedTree(kind, in: dir)
            let run = try Spawn.clipkit(["thumb", "media", "-r", "-o", "thumbs/", "--json", "--jobs", "2", "--timeout", "5"], in: dir, killAfter: 40)
            Self.expectQuick(run, kind)
            #expect(run.exitStatus == 0 || (kind == "mutual" && run.exitStatus == 1), "\(run)")
            let root = try #require(Tree.realPath(media.path))
            let lines = (try? Decoded.jsonLines(run.stdout)) ?? []
            let inputs = lines.compactMap { $0["input"] as? String }
            let real = inputs.map { Tree.realPath($0) ?? $0 }
            let outside = real.filter { !$0.hasPrefix(root + "/") }
            #expect(outside.isEmpty, "converted outside the tree: \(outside.prefix(5)) (\(outside.count) in all)")
            #expect(Set(real).count == real.count, "same file converted more than once: \(inputs.prefix(6)) (\(inputs.count) inputs)")
            #expect(Set(real) == [root + "/a.mp4", root + "/sub/b.mov"], "inputs: \(inputs.prefix(6))")
        }

        static func expectQuick(_ run: ChildRun, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            Hostile.Inputs.expectBounded(run, what, seconds: 15, sourceLocation: sourceLocation)
        }

        /// Two links to each other, given directly: a one-line error each, quickly.
        @Test func mutualLinksGivenDirectly() throws {
            let dir = Fixture.scratchDirectory()
            let media = try Self.linkedTree("mutual", in: dir)
            let run = try Spawn.clipkit(["thumb", media.appendingPathComponent("x").path, "-o", "thumbs/"], in: dir, killAfter: 30)
            Self.expectQuick(run, "thumb x")
            Hostile.Inputs.expectRefused(run, input: media.appendingPathComponent("x").path, in: dir.appendingPathComponent("thumbs"))
        }

        /// `-o .` and `-o` equal to the input's own directory: nothing replaced or deleted, exit 1.
        @Test(arguments: [(["explode", "a.gif", "-o", ".", "--force"], "."),
                          (["explode", "d/a.gif", "-o", "d", "--force"], ""),
                          (["explode", "d/a.gif", "-o", "d/", "--force"], ""),
                          (["gif", "a.gif", "-o", "."], "."),
                          (["gif", "d/a.gif", "-o", "d/", "--force"], "")])
        func outputOverInputDeletesNothing(_ arguments: [String], _ workIn: String) throws {
            let dir = Fixture.scratchDirectory()
            let d = dir.appendingPathComponent("d")
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixture.url("gif/disposal_none.gif"), to: d.appendingPathComponent("a.gif"))
            try Data("notes\n".utf8).write(to: d.appendingPathComponent("notes.txt"))
            try FileManager.default.copyItem(at: Fixture.url("video/still.png"), to: d.appendingPathComponent("b.png"))
            let before = Tree.snapshot(dir)
            let run = try Spawn.clipkit(arguments, in: workIn == "." ? d : dir, killAfter: 30)
            Self.expectQuick(run, "\(arguments)")
            #expect(run.exitStatus == 1, "\(run)")
            let after = Tree.snapshot(dir)
            let lost = before.keys.filter { after[$0] != before[$0] }.sorted()
            #expect(lost.isEmpty, "deleted or changed: \(lost)")
            #expect(Tree.leftoverTemps(dir).isEmpty, "\(Tree.leftoverTemps(dir))")
        }

        /// A huge `.clipkit-state.json` (an older clipkit's) beside the outputs is ignored, never loaded.
        @Test(arguments: ["brackets-100MB", "sparse-2GB", "garbage"])
        func hugeStateFileDoesNotBlowMemory(_ kind: String) throws {
            let dir = Fixture.scratchDirectory("state-\(kind)")
            let out = dir.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let state = out.appendingPathComponent(".clipkit-state.json")
            defer { try? FileManager.default.removeItem(at: state) }
            switch kind {
            case "brackets-100MB":
                try Data(repeating: UInt8(ascii: "["), count: 100 << 20).write(to: state)
            case "sparse-2GB":
                #expect(FileManager.default.createFile(atPath: state.path, contents: nil))
                #expect(truncate(state.path, 2 << 30) == 0)
            default:
                try Data("{\"a.png\": not json at all \u{0}\u{1}".utf8).write(to: state)
            }
            let run = try Spawn.clipkit(["thumb", Self.clip.path, "-o", "out/"], in: dir, killAfter: 60)
            Hostile.Inputs.expectBounded(run, "thumb with \(kind) state", seconds: 20, rss: 300 << 20)
            #expect(run.exitStatus == 0, "\(run)")
            if run.exitStatus == 0 { try Decoded.png(out.appendingPathComponent("counter.png")) }
            #expect(Tree.leftoverTemps(dir).isEmpty, "\(Tree.leftoverTemps(dir))")
        }

        /// A file name with a newline: the error is one line (the newline escaped), and --json one object.
        @Test func newlineInNameGivesOneLine() throws {
            let dir = Fixture.scratchDirectory()
            let name = "bad\nname.mp4"
            try FileManager.default.copyItem(at: Fixture.url("video/not_video.mp4"), to: dir.appendingPathComponent(name))
            let run = try Spawn.clipkit(["thumb", name, "-o", "out/"], in: dir)
            Self.expectQuick(run, "thumb")
            #expect(run.exitStatus == 1, "\(run)")
            #expect(run.stderrLines.count == 1, "not one line: \(run.stderr.debugDescription)")
            #expect(run.stderr.contains("name.mp4"), "\(run.stderr)")

            let json = try Spawn.clipkit(["thumb", name, "-o", "out/", "--json"], in: dir)
            #expect(json.exitStatus == 1, "\(json)")
            #expect(json.stderrLines.count == 1, "not one line: \(json.stderr.debugDescription)")
            let lines = try Decoded.jsonLines(json.stdout)
            #expect(lines.count == 1 && (lines.first?["input"] as? String)?.hasSuffix("/" + name) == true, "\(json.stdout)")
        }

        /// Names starting with a dash work after `--`.
        @Test(arguments: [("thumb", "-o.mp4", "out/-o.png"), ("gif", "-o.mp4", "out/-o.gif"),
                          ("gif", "--help.gif", "out/--help.gif"), ("explode", "--help.gif", "out/--help.frames/frames.json")])
        func leadingDashAfterDoubleDash(_ command: String, _ name: String, _ output: String) throws {
            let dir = Fixture.scratchDirectory()
            let source = name.hasSuffix(".gif") ? Fixture.url("gif/disposal_none.gif") : Self.clip
            try FileManager.default.copyItem(at: source, to: dir.appendingPathComponent(name))
            // explode writes NAME.frames inside -o only for several inputs: give it a second one.
            var inputs = [name]
            if command == "explode" {
                try FileManager.default.copyItem(at: Fixture.url("gif/loop_zero.gif"), to: dir.appendingPathComponent("other.gif"))
                inputs.append("other.gif")
            }
            let run = try Spawn.clipkit([command, "-o", "out/", "--"] + inputs, in: dir)
            Self.expectQuick(run, "\(command) -- \(name)")
            #expect(run.exitStatus == 0, "\(run)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(output).path), "no \(output): \(Tree.walk(dir))")
        }

        /// Names near NAME_MAX: 250 bytes work for every command; 255 bytes (where the output or
        /// temp name would pass NAME_MAX) work or fail for that input with one line.
        @Test(arguments: [250, 255], ["gif", "thumb", "explode", "info"])
        func nameNearNameMax(_ length: Int, _ command: String) throws {
            let dir = Fixture.scratchDirectory()
            let stem = String(repeating: "n", count: length - 4)
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent(stem + ".mp4"))
            let run = try Spawn.clipkit([command, stem + ".mp4"], in: dir)
            Self.expectQuick(run, "\(command) \(length)-byte name")
            let expected = ["gif": stem + ".gif", "thumb": stem + ".png", "explode": stem + ".frames/frames.json"][command]
            if length <= 250 {
                #expect(run.exitStatus == 0, "\(run)")
                if let expected {
                    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(expected).path), "\(Tree.walk(dir))")
                }
            } else if run.exitStatus != 0 {
                #expect(run.exitStatus == 1 && run.errorLines.count == 1, "\(run)")
                #expect(Tree.outputs(dir) == [stem + ".mp4"], "left \(Tree.outputs(dir))")
            }
            #expect(Tree.leftoverTemps(dir).isEmpty, "\(Tree.leftoverTemps(dir))")
        }

        /// a.mp4 and a.mov into one -o directory: an error before anything is written, for any --jobs.
        @Test(arguments: ["gif", "thumb", "explode"], ["1", "2"])
        func sameStemIsAnErrorBeforeWriting(_ command: String, _ jobs: String) throws {
            let dir = Fixture.scratchDirectory()
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("a.mp4"))
            try FileManager.default.copyItem(at: Fixture.url("video/rotated90.mov"), to: dir.appendingPathComponent("a.mov"))
            let run = try Spawn.clipkit([command, "a.mp4", "a.mov", "-o", "out/", "--jobs", jobs], in: dir)
            Self.expectQuick(run, "\(command) a.mp4 a.mov")
            #expect(run.exitStatus == 1 || run.exitStatus == 2, "\(run)")
            #expect(run.stderr.contains("a.mp4") || run.stderr.contains("a.mov"), "no message naming the inputs: \(run.stderr)")
            let written = Tree.outputs(dir.appendingPathComponent("out"))
            #expect(written.isEmpty, "written: \(written)")
        }

        /// stdout a pipe closed after one byte: clipkit exits 1 (not by SIGPIPE), leaves no temp
        /// files, and the GIFs it did rename are complete.
        @Test func closedStdoutPipe() throws {
            let dir = Fixture.scratchDirectory()
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            for i in 1...6 { try FileManager.default.copyItem(at: Self.clip, to: media.appendingPathComponent("c\(i).mp4")) }
            try FileManager.default.copyItem(at: Fixture.url("video/motion.mp4"), to: media.appendingPathComponent("m.mp4"))
            let status = dir.appendingPathComponent("status").path
            let script = "{ '\(CLI.binary.path)' gif media -o out/ --json --jobs 2; echo $? > '\(status)'; } | head -c1 >/dev/null"
            let run = try Spawn.run("/bin/sh", ["-c", script], in: dir, killAfter: 60)
            Self.expectQuick(run, "clipkit | head -c1")
            let code = try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(code == "1", "clipkit exited \(code) (141 is death by SIGPIPE)")
            let out = dir.appendingPathComponent("out")
            #expect(!Tree.walk(out).contains { $0.contains(".clipkit-") },
                    "temp files left: \(Tree.walk(out))")
            for name in Tree.outputs(out) where name.hasSuffix(".gif") {
                #expect(throws: Never.self, "\(name) incomplete") { try Decoded.gif(out.appendingPathComponent(name), keep: 0) }
            }
        }

        /// An output directory inside the input directory: this run's outputs are not inputs, now or next time.
        @Test func outputInsideInputIsNotRescanned() throws {
            let dir = Fixture.scratchDirectory()
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.clip, to: media.appendingPathComponent("a.mp4"))
            try FileManager.default.copyItem(at: Fixture.url("video/still.png"), to: media.appendingPathComponent("s.png"))
            for pass in 1...2 {
                let run = try Spawn.clipkit(["thumb", "media/", "-r", "-o", "media/previews/", "--json"], in: dir)
                Self.expectQuick(run, "pass \(pass)")
                #expect(run.exitStatus == 0, "pass \(pass): \(run)")
            }
            let written = Tree.outputs(media.appendingPathComponent("previews"))
            #expect(written.sorted() == ["a.png", "s.png"], "previews: \(written)")
        }

        /// A sub-directory the run cannot read is that directory's failure (one line, exit 1, a
        /// JSON record), never skipped: its clips were missing from the run, which still passed;
        /// a directory given that cannot be read says so (it said it held no video). Root reads
        /// any directory, so as root the run is made as `nobody`.
        @Test func anUnreadableDirectoryIsAFailure() throws {
            let dir = Fixture.scratchDirectory()
            let media = dir.appendingPathComponent("media"), locked = media.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.clip, to: media.appendingPathComponent("a.mp4"))
            try FileManager.default.copyItem(at: Self.clip, to: locked.appendingPathComponent("b.mp4"))
            var command = [CLI.binary.path]
            if geteuid() == 0 {
                guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") || FileManager.default.isExecutableFile(atPath: "/sbin/runuser") else { return }
                // A copy of the binary and a directory that `nobody` may use.
                let binary = dir.appendingPathComponent("clipkit")
                try FileManager.default.copyItem(at: CLI.binary, to: binary)
                for path in [dir.path, media.path, binary.path] { chmod(path, 0o777) }
                // The temp directory itself must let others through (/tmp does); else nothing to see here.
                let tmp = (try? FileManager.default.attributesOfItem(atPath: dir.deletingLastPathComponent().path)[.posixPermissions] as? Int) ?? 0
                guard tmp & 0o001 != 0 else { return }
                command = ["/usr/sbin/runuser", "-u", "nobody", "--", binary.path]
            }
            chmod(locked.path, 0)
            defer { chmod(locked.path, 0o755) }
            let batch = try Spawn.run(command[0], Array(command.dropFirst()) + ["thumb", "media", "-r", "-o", "out", "--json"], in: dir, killAfter: 40)
            #expect(batch.exitStatus == 1, "\(batch)")
            #expect(batch.stderr.contains("\(locked.path): cannot read: Permission denied"), "\(batch.stderr)")
            #expect(batch.stdout.split(separator: "\n").count == 2, "\(batch.stdout)")
            let given = try Spawn.run(command[0], Array(command.dropFirst()) + ["thumb", locked.path, "-o", "out2/"], in: dir, killAfter: 40)
            #expect(given.exitStatus == 1 && given.stderr.contains("cannot read: Permission denied"), "\(given)")
        }

        /// Outputs written into the directory searched (`clipkit thumb .`, `-o` the input
        /// directory): a rerun leaves them out. Before, `thumb .` twice took `a.png` for an input
        /// writing `a.png` too (exit 2 on every rerun), and `storyboard . -r` made storyboards of
        /// the last run's sheets, one level deeper each time. A source's own PNG or GIF (one
        /// that clipkit did not write) is still an input.
        @Test func outputsBesideTheirSourcesAreNotInputsNextTime() throws {
            let dir = Fixture.scratchDirectory()
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("a.mp4"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixture.url("video/vfr.mkv"), to: dir.appendingPathComponent("sub/b.mkv"))
            let runs = [["thumb", ".", "-r"], ["thumb", ".", "-r", "--pick", "best", "--count", "2"], ["gif", ".", "-r", "-o", "."],
                        ["gif", ".", "-r", "-o", ".", "--format", "webp"], ["storyboard", ".", "-r"], ["explode", ".", "-r", "--fps", "1"]]
            var after: [String] = []
            for pass in 1...2 {
                for arguments in runs {
                    let run = try Spawn.clipkit(arguments + ["-q"], in: dir)
                    Self.expectQuick(run, "pass \(pass) \(arguments)")
                    #expect(run.exitStatus == 0, "pass \(pass) \(arguments): \(run)")
                }
                let tree = Tree.outputs(dir).sorted()
                if pass == 1 { after = tree } else { #expect(tree == after, "the second pass wrote nothing new") }
            }
            #expect(after.contains("sub/b.storyboard/sheet_0.jpg") && after.contains("a-1.png") && after.contains("sub/b.webp"))
            // Nothing made from an output: only the two sources' frames and storyboards.
            #expect(Set(after.filter { $0.hasSuffix(".frames") || $0.hasSuffix(".storyboard") })
                    == ["a.frames", "a.storyboard", "sub/b.frames", "sub/b.storyboard"], "\(after)")
            // A picture beside a video, not written by clipkit, is an input (and its name a clash:
            // both fail, each naming the other, and the rest are done).
            try FileManager.default.copyItem(at: Fixture.url("video/still.png"), to: dir.appendingPathComponent("c.png"))
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("c.mp4"))
            let clash = try Spawn.clipkit(["thumb", "."], in: dir)
            #expect(clash.exitStatus == 1 && clash.stderr.contains("c.png would also be written from"), "\(clash)")
        }

        /// A manifest frame that is a link out of the directory, or a FIFO: refused, without
        /// blocking and without the target's content in the message.
        @Test(arguments: ["link", "fifo"])
        func manifestFrameThatIsNotARegularFile(_ kind: String) throws {
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", Fixture.url("gif/disposal_none.gif").path, "-o", "frames"], in: dir)
            try #require(explode.exitStatus == 0, "\(explode)")
            let frame = dir.appendingPathComponent("frames/frame_0001.png")
            try #require(FileManager.default.fileExists(atPath: frame.path))
            try FileManager.default.removeItem(at: frame)
            let secret = dir.appendingPathComponent("secret.txt")
            try Data("SECRET-CONTENT-1234\n".utf8).write(to: secret)
            if kind == "link" {
                #expect(symlink(secret.path, frame.path) == 0)
            } else {
                #expect(mkfifo(frame.path, 0o644) == 0)
            }
            let run = try Spawn.clipkit(["gif", "frames/frames.json", "-o", "result.gif"], in: dir, killAfter: 20)
            Self.expectQuick(run, "gif over a manifest with a \(kind)")
            #expect(run.exitStatus == 1, "\(run)")
            #expect(run.errorLines.count == 1, "\(run.stderr)")
            #expect(!run.stderr.contains("SECRET"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("result.gif").path))
        }
    }
}
