// Inputs that could block or confuse an unattended run: /proc files, FIFOs, devices, dashed names, pipes.
import Foundation
import Testing
import TestSupport

extension Hostile {
    @Suite struct Unattended {
        static let clip = Fixture.url("video/counter.mp4")
        static let commands: [[String]] = [["gif", "-o", "out.gif"], ["thumb", "-o", "out.png"], ["explode", "-o", "out/"],
                                           ["info"], ["storyboard", "-o", "board/"]]

        /// A command on a blocking or special input: exit 1 within a second, one line naming it.
        static func expectRefusedQuickly(_ input: String, _ command: [String], saying words: String,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command[0], input] + command.dropFirst(), in: dir, killAfter: 10)
            // 1 s alone; 2 s leaves room for a loaded CI machine.
            Hostile.Inputs.expectBounded(run, "\(command[0]) \(input)", seconds: 2, sourceLocation: sourceLocation)
            #expect(run.exitStatus == 1, "\(command[0]) \(input): \(run)", sourceLocation: sourceLocation)
            #expect(run.errorLines.count == 1 && run.stderr.contains(input) && run.stderr.contains(words),
                    "\(command[0]) \(input): \(run.stderr.debugDescription)", sourceLocation: sourceLocation)
            // An empty output directory may be made before the input is opened; no file is written.
            #expect(Tree.snapshot(dir).values.allSatisfy { $0.isEmpty }, "\(command[0]) \(input) wrote \(Tree.walk(dir))", sourceLocation: sourceLocation)
        }

        /// /proc files are regular files of size 0: empty before any read, whether their reads
        /// would succeed (/proc/self/status) or block (/proc/kmsg).
        @Test(arguments: commands) func procFilesAreEmpty(_ command: [String]) throws {
            try Self.expectRefusedQuickly("/proc/self/status", command, saying: "empty file")
            if FileManager.default.fileExists(atPath: "/proc/kmsg") {
                try Self.expectRefusedQuickly("/proc/kmsg", command, saying: "empty file")
            }
        }

        /// Devices are refused without a read; a FIFO with no writer without an open (which would block).
        @Test(arguments: commands) func specialFilesAreRefused(_ command: [String]) throws {
            let fifo = Fixture.scratchDirectory().appendingPathComponent("pipe.mp4").path
            #expect(mkfifo(fifo, 0o644) == 0)
            for input in [fifo, "/dev/zero", "/dev/urandom"] {
                try Self.expectRefusedQuickly(input, command, saying: "not a regular file")
            }
        }

        /// A file name typed as is that looks like options: exit 2, one line naming it and
        /// suggesting `--`, nothing written (not help and exit 0, as `-dash.mp4` gave: the cluster holds h).
        @Test(arguments: [["gif", "-dash.mp4", "-o", "out.gif"], ["thumb", "-x.mp4", "-o", "out.png"],
                          ["info", "--nosuch.gif"], ["explode", "-o", "out/", "-h.gif"], ["gif", "-q"]])
        func dashedNamesAreUsageErrors(_ arguments: [String]) throws {
            let dir = Fixture.scratchDirectory()
            let name = arguments.first { $0.contains(".") && $0.hasPrefix("-") } ?? "-q"
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent(name))
            let run = try Spawn.clipkit(arguments, in: dir, killAfter: 10)
            #expect(run.exitStatus == 2, "\(arguments): \(run)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(name) && run.stderr.contains("clipkit \(arguments[0]) -- \(name)"),
                    "\(arguments): \(run.stderr.debugDescription)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
            #expect(Tree.walk(dir) == [name], "\(arguments): \(Tree.walk(dir))")
        }

        /// `clipkit help NAME` for a NAME that is no command is bad usage, as `clipkit NAME` is
        /// (it printed the general help and exited 0); `help gif` still prints gif's help.
        @Test func helpForAnUnknownCommandIsAUsageError() throws {
            let dir = Fixture.scratchDirectory()
            let bogus = try Spawn.clipkit(["help", "bogus"], in: dir, killAfter: 10)
            #expect(bogus.exitStatus == 2 && bogus.stdout.isEmpty, "\(bogus)")
            #expect(bogus.stderrLines == ["clipkit: unknown command 'bogus' (see clipkit --help)"], "\(bogus.stderr.debugDescription)")
            let known = try Spawn.clipkit(["help", "gif"], in: dir, killAfter: 10)
            #expect(known.exitStatus == 0 && known.stdout.contains("--max-bytes"), "\(known)")
        }

        /// What the pre-pass must let through: `--`, option values that start with a dash (a
        /// negative number reaches its own value check), clusters of short flags.
        @Test func dashedValuesStillParse() throws {
            let dir = Fixture.scratchDirectory()
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("-dash.mp4"))
            let dashed = try Spawn.clipkit(["thumb", "-o", "out.png", "--", "-dash.mp4"], in: dir, killAfter: 20)
            #expect(dashed.exitStatus == 0 && FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path), "\(dashed)")
            let negative = try Spawn.clipkit(["gif", "-dash.mp4", "--start", "-1", "-o", "x.gif"].filter { $0 != "-dash.mp4" } + ["--", "-dash.mp4"],
                                             in: dir, killAfter: 20)
            #expect(negative.exitStatus == 2 && negative.stderr.contains("--start") && !negative.stderr.contains("for a file of that name"), "\(negative)")
            let cluster = try Spawn.clipkit(["thumb", "-rq", "-o", "c.png", "--", "-dash.mp4"], in: dir, killAfter: 20)
            #expect(cluster.exitStatus == 0, "\(cluster)")
        }

        /// Runs clipkit with `input` on its standard input; stdout and stderr as bytes.
        static func piped(_ arguments: [String], input: Data?, in directory: URL) throws -> (status: Int32, stdout: Data, stderr: String) {
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = arguments
            process.currentDirectoryURL = directory
            let stdin = Pipe(), output = Pipe(), errors = Pipe()
            process.standardInput = stdin
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let out = Box<Data>()
            let reader = Thread { out.set(output.fileHandleForReading.readDataToEndOfFile()) }
            reader.start()
            let err = Box<Data>()
            let errorReader = Thread { err.set(errors.fileHandleForReading.readDataToEndOfFile()) }
            errorReader.start()
            // nil: the writing end stays open (a producer that never writes) until clipkit exits.
            if let input {
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try stdin.fileHandleForWriting.close()
            }
            process.waitUntilExit()
            try? stdin.fileHandleForWriting.close()
            return (process.terminationStatus, out.wait(), String(decoding: err.wait(), as: UTF8.self))
        }

        /// `-` reads standard input and `-o -` writes standard output: the bytes are those the same
        /// command writes to a file, and nothing else is on stdout (--json goes to stderr).
        @Test(arguments: [(["thumb"], "video/counter.mp4", "png"), (["gif"], "video/counter.mp4", "gif"),
                          (["gif", "--format", "webp"], "video/counter.mp4", "webp"), (["gif"], "gif/loop_zero.gif", "gif")])
        func pipesCarryTheOutput(_ command: [String], _ fixture: String, _ ext: String) throws {
            let dir = Fixture.scratchDirectory()
            let source = Fixture.url(fixture)
            let reference = dir.appendingPathComponent("reference.\(ext)")
            let file = try Spawn.clipkit(command + [source.path, "-o", reference.path], in: dir, killAfter: 30)
            #expect(file.exitStatus == 0, "\(file)")
            let run = try Self.piped(command + ["-", "-o", "-", "--json"], input: try Data(contentsOf: source), in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == (try Data(contentsOf: reference)), "stdout is not the file output (\(run.stdout.count) bytes)")
            #expect(run.stderr.contains("\"status\":\"ok\""), "no JSON report on stderr: \(run.stderr)")
            #expect(run.stderr.contains("\"input\":\"-\"") && run.stderr.contains("\"outputs\":[\"-\"]"), "pipes not shown as -: \(run.stderr)")
            // The summary line too names the output "-", not the private directory it passed through.
            let named = try Self.piped(command + [source.path, "-o", "-"], input: nil, in: dir)
            #expect(named.status == 0 && !named.stderr.contains("clipkit-pipe") && (named.stderr.isEmpty || named.stderr.hasPrefix("-:")), "\(named.stderr)")
            let piped = dir.appendingPathComponent("piped.\(ext)")
            try run.stdout.write(to: piped)
            if ext == "png" { #expect(try Decoded.png(piped).width == 160) }
            if ext == "gif" { #expect(try !Decoded.gif(piped).delays.isEmpty) }
            #expect(Tree.walk(dir).sorted() == ["piped.\(ext)", "reference.\(ext)"], "\(Tree.walk(dir))")
        }

        /// What a pipe cannot do: one line, nothing on stdout, the right exit code.
        @Test func pipeRefusals() throws {
            let dir = Fixture.scratchDirectory()
            let clip = try Data(contentsOf: Self.clip)
            for (arguments, status, words) in [(["gif", "-", "-o", "-", "--format", "gif,webp"], Int32(2), "one output"),
                                              (["explode", "-", "-o", "-"], 2, "directory"),
                                              (["gif", "-", "-", "-o", "x.gif"], 2, "twice"),
                                              (["gif", "-", "-o", "-", "-o", "x.webp"], 2, "-o: -: with several -o")] {
                let run = try Self.piped(arguments, input: clip, in: dir)
                #expect(run.status == status && run.stdout.isEmpty && run.stderr.contains(words), "\(arguments): \(run.stderr)")
                // Standard input and output are "-" in every message, never their private copies.
                #expect(!run.stderr.contains("clipkit-pipe"), "\(arguments): \(run.stderr)")
            }
            let garbage = try Self.piped(["thumb", "-", "-o", "out.png"], input: Data(repeating: 7, count: 500), in: dir)
            #expect(garbage.status == 1 && garbage.stderr.hasPrefix("clipkit: -: ") && garbage.stderr.split(separator: "\n").count == 1,
                    "\(garbage.stderr)")
            // `info` names standard input "-" too, in its line, its error and its JSON (it named the private copy).
            let info = try Self.piped(["info", "--json", "-"], input: Data(repeating: 7, count: 500), in: dir)
            let described = String(decoding: info.stdout, as: UTF8.self)
            #expect(info.status == 1 && info.stderr.hasPrefix("clipkit: -: ") && !info.stderr.contains("clipkit-pipe")
                    && described.contains("\"input\":\"-\"") && !described.contains("clipkit-pipe"), "\(info.stderr) \(described)")
            let shown = try Self.piped(["info", "-"], input: try Data(contentsOf: Self.clip), in: dir)
            #expect(shown.status == 0 && String(decoding: shown.stdout, as: UTF8.self).hasPrefix("-\n"), "\(shown)")
            let empty = try Self.piped(["thumb", "-", "-o", "-"], input: Data(), in: dir)
            #expect(empty.status == 1 && empty.stdout.isEmpty && empty.stderr.contains("empty"), "\(empty.stderr)")
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("a.mp4"))
            try FileManager.default.copyItem(at: Self.clip, to: dir.appendingPathComponent("b.mp4"))
            let two = try Self.piped(["thumb", "a.mp4", "b.mp4", "-o", "-"], input: nil, in: dir)
            #expect(two.status == 2 && two.stdout.isEmpty && two.stderr.contains("one output"), "\(two.stderr)")
        }

        /// A standard input that never ends: --timeout bounds the wait.
        @Test func blockingStandardInputTimesOut() throws {
            let dir = Fixture.scratchDirectory()
            let started = Date()
            let run = try Self.piped(["thumb", "-", "-o", "-", "--timeout", "0.5"], input: nil, in: dir)
            #expect(run.status == 1 && run.stdout.isEmpty && run.stderr.contains("--timeout"), "\(run.stderr)")
            #expect(Date().timeIntervalSince(started) < 5 * Hostile.Inputs.loadStretch)
        }

        /// A standard input that never pauses (`cat /dev/zero`): --timeout stops the copy too. (Only a
        /// stream that ran dry timed out: `< /dev/urandom` copied 4 GiB, 22 s past `--timeout 2`.)
        @Test func endlessStandardInputTimesOut() throws {
            let dir = Fixture.scratchDirectory()
            let tmp = dir.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            let started = Date()
            let script = "cat /dev/zero | TMPDIR=\"$2\" \"$1\" thumb - -o out.png --timeout 0.2"
            let run = try Spawn.run("/bin/sh", ["-c", script, "sh", CLI.binary.path, tmp.path], in: dir, killAfter: 60)
            #expect(run.exitStatus == 1 && run.stderr.contains("--timeout"), "\(run)")
            #expect(Date().timeIntervalSince(started) < 5 * Hostile.Inputs.loadStretch)
            #expect(Tree.walk(tmp).isEmpty, "left in TMPDIR: \(Tree.walk(tmp))")
        }

        /// A long standard input is copied to disk chunk by chunk: memory stays flat (it held the
        /// whole stream, twice, before), and the copy goes when clipkit is done.
        @Test func longStandardInputKeepsMemoryFlat() throws {
            let dir = Fixture.scratchDirectory()
            let tmp = dir.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            let rss = dir.appendingPathComponent("rss").path
            // 96 MiB of zeros: not media, refused after the probe; the copy is what is measured.
            let script = "head -c 100663296 /dev/zero | TMPDIR=\"$2\" /usr/bin/time -f %M -o \"$3\" \"$1\" thumb - -o out.png"
            let run = try Spawn.run("/bin/sh", ["-c", script, "sh", CLI.binary.path, tmp.path, rss], in: dir, killAfter: 60)
            #expect(run.exitStatus == 1 && run.stderr.hasPrefix("clipkit: -: "), "\(run)")
            let kilobytes = try #require(Int(String(decoding: try Data(contentsOf: URL(fileURLWithPath: rss)), as: UTF8.self)
                .split(separator: "\n").last ?? ""))
            // A sanitizer's own memory (ASan's quarantine keeps freed chunks) is allowed for.
            #expect(kilobytes < (80 << 10) * Hostile.Inputs.sanitizerScale.memory, "peak RSS \(kilobytes >> 10) MiB reading 96 MiB of standard input")
            #expect(Tree.walk(tmp).isEmpty, "left in TMPDIR: \(Tree.walk(tmp))")
        }

        /// SIGINT while standard input is being read: exit 130, and the private copy is gone.
        @Test func interruptedStandardInputLeavesNothing() throws {
            let dir = Fixture.scratchDirectory()
            let tmp = dir.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = ["thumb", "-", "-o", "-"]
            process.currentDirectoryURL = dir
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmp.path]) { $1 }
            let stdin = Pipe()
            process.standardInput = stdin
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try stdin.fileHandleForWriting.write(contentsOf: Data(repeating: 1, count: 100_000))
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, process.isRunning,
                  !Tree.walk(tmp).contains(where: { $0.hasPrefix("clipkit-pipe-") && $0.hasSuffix("stdin.part") }) {
                Thread.sleep(forTimeInterval: 0.005)
            }
            #expect(process.isRunning, "clipkit ended before it was interrupted")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            try? stdin.fileHandleForWriting.close()
            #expect(process.terminationStatus == 128 + SIGINT)
            #expect(Tree.walk(tmp).isEmpty, "left in TMPDIR: \(Tree.walk(tmp))")
        }
    }
}
