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
    }
}
