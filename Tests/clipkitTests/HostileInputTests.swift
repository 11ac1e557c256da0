// Every command over the hostile corpus (Fixtures/hostile, see its README), and the situations
// that README lists to be made at test time (symlink loops, odd names, a closed stdout, ...).
//
// Each clipkit run is a child spawned here (posix_spawn, in a process group of its own) under
// GNU time, which forks and execs clipkit and reports that process's peak RSS. wait4 on the
// spawned child alone would not do: posix_spawn starts the child with CLONE_VM, so its
// ru_maxrss starts at the test runner's own high-water mark. A child that overruns is killed
// with its group; its pid is the group id and cannot have been reused, because the child is
// not reaped until after the kill. Both suites run serialized under one parent suite, so
// their timings are not skewed by each other.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

/// One parent suite, serialized: the children spawned here do not compete for the CPU.
@Suite(.serialized) enum Hostile {}

// MARK: - Running a child

/// How one child ended and what it cost.
struct ChildRun: CustomStringConvertible {
    /// Exit status, nil when a signal ended it.
    var exitStatus: Int32?
    /// The signal that ended it, nil when it exited.
    var signal: Int32?
    /// Wall time from spawn to exit.
    var seconds: Double
    /// Peak resident set size of the child, in bytes (0 when it was not measured or was killed).
    var maxRSS: Int
    /// The test killed it for overrunning.
    var killed: Bool
    var stdout: String
    var stderr: String

    var stderrLines: [Substring] { stderr.split(separator: "\n") }
    /// Lines of stderr that are not warnings.
    var errorLines: [Substring] { stderrLines.filter { !$0.hasPrefix("clipkit: warning:") } }
    var megabytes: Int { maxRSS >> 20 }

    var description: String {
        let end = exitStatus.map { "exit \($0)" } ?? "signal \(signal ?? -1)"
        return "\(end)\(killed ? " (killed by the test)" : ""), \(String(format: "%.2f", seconds)) s, \(megabytes) MiB; stderr: \(stderr.prefix(600))"
    }
}

enum Spawn {
    /// glibc's posix_spawn_file_actions_addchdir_np (2.29+), which the Glibc module does not
    /// export: the child starts in its directory without a shell in between.
    private static let addChdir: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32 = {
        let handle = dlopen(nil, RTLD_NOW)
        guard let symbol = dlsym(handle, "posix_spawn_file_actions_addchdir_np") else {
            fatalError("posix_spawn_file_actions_addchdir_np not found (glibc 2.29 or later needed)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    }()

    /// Runs `executable` with `arguments` in `directory`, stdin from /dev/null, SIGPIPE at its
    /// default action whatever the test runner does with it, in a new process group that is
    /// killed with SIGKILL after `killAfter` s. `measure`: run it under /usr/bin/time for its peak RSS.
    static func run(_ executable: String, _ arguments: [String], in directory: URL, killAfter: Double,
                    measure: Bool = false) throws -> ChildRun {
        let logs = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("clipkit-tests-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let outPath = logs.appendingPathComponent("stdout").path
        let errPath = logs.appendingPathComponent("stderr").path
        let rssPath = logs.appendingPathComponent("rss").path
        let command = measure ? ["/usr/bin/time", "-f", "%M", "-o", rssPath, executable] + arguments : [executable] + arguments

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard addChdir(&actions, directory.path) == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot set the child's directory"])
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(command[0]): \(String(cString: strerror(spawned)))"])
        }
        var status: Int32 = 0
        var usage = rusage()
        var killed = false
        var end = start
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            end = DispatchTime.now().uptimeNanoseconds
            if reaped == pid { break }
            if reaped == -1 {
                if errno == EINTR { continue }
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "wait4: \(String(cString: strerror(errno)))"])
            }
            if !killed, Double(end - start) / 1e9 > killAfter {
                // The group of our unreaped child: its id cannot belong to anyone else yet.
                kill(-pid, SIGKILL)
                killed = true
            }
            usleep(2000)
        }
        var signalled = status & 0x7f
        var exitStatus: Int32? = signalled == 0 ? (status >> 8) & 0xff : nil
        var maxRSS = 0
        if measure, !killed, let report = try? String(contentsOfFile: rssPath, encoding: .utf8) {
            // GNU time: "Command terminated by signal N" (and exit 128+N), then the peak RSS in KiB.
            let lines = report.split(separator: "\n")
            if let line = lines.first(where: { $0.hasPrefix("Command terminated by signal ") }),
               let number = Int32(line.dropFirst("Command terminated by signal ".count)) {
                signalled = number
                exitStatus = nil
            }
            maxRSS = (lines.last.flatMap { Int($0) } ?? 0) * 1024
        }
        // Read through FileHandle: Foundation's Data(contentsOf:) leaks its buffer (LeakSanitizer).
        func contents(_ path: String) -> Data {
            guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
            defer { try? handle.close() }
            return (try? handle.readToEnd()) ?? Data()
        }
        let stdout = contents(outPath)
        let stderr = contents(errPath)
        return ChildRun(exitStatus: exitStatus, signal: exitStatus == nil ? signalled : nil,
                        seconds: Double(end - start) / 1e9, maxRSS: maxRSS, killed: killed,
                        stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func clipkit(_ arguments: [String], in directory: URL, killAfter: Double = 40) throws -> ChildRun {
        try run(CLI.binary.path, arguments, in: directory, killAfter: killAfter, measure: true)
    }
}

// MARK: - Files

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
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
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

/// What decoding an output found.
enum Decoded {
    /// Every frame's delay, and the first `keep` canvases, of a GIF.
    static func gif(_ url: URL, keep: Int = 2) throws -> (delays: [Int], canvases: [RGBAImage]) {
        let animation = try GIFAnimation(url: url)
        var delays: [Int] = [], canvases: [RGBAImage] = []
        while let frame = try animation.next() {
            delays.append(frame.delay)
            if canvases.count < keep { canvases.append(frame.canvas) }
        }
        return (delays, canvases)
    }

    /// A PNG decoded in full, or only its header when it is larger than 40 Mpixel (the 10k canvas
    /// bomb's single frame would be 400 MB in the test process).
    @discardableResult
    static func png(_ url: URL) throws -> (width: Int, height: Int) {
        let (width, height) = try PNGReader.size(of: url)
        if width * height <= 40_000_000 {
            let image = try PNGReader.read(url)
            return (image.width, image.height)
        }
        return (width, height)
    }

    /// An explode directory's frames.json (as plain JSON: a manifest with a delay over 65535
    /// is allowed here, for `clipkit gif` to reject) and every PNG it lists, decoded.
    static func explode(_ directory: URL) throws -> (delays: [Int], files: [String]) {
        let data = try Data(contentsOf: directory.appendingPathComponent("frames.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(object["frames"] as? [[String: Any]])
        var delays: [Int] = [], files: [String] = []
        for frame in frames {
            let file = try #require(frame["file"] as? String)
            delays.append(try #require(frame["delay_cs"] as? Int))
            files.append(file)
            try png(directory.appendingPathComponent(file))
        }
        return (delays, files)
    }

    /// One JSON object per stdout line.
    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }
}

// MARK: - The corpus

extension Hostile {
    @Suite struct Inputs {
        static let commands = ["gif", "explode", "thumb", "storyboard", "info"]

        /// Every file of Fixtures/hostile but its README, and each `*.frames/frames.json`.
        static let corpus: [String] = {
            let directory = Fixture.url("hostile")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            var inputs: [String] = []
            for name in names.sorted() where name != "README.md" {
                if Tree.isDirectory(directory.appendingPathComponent(name).path) {
                    if FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(name)/frames.json").path) {
                        inputs.append("\(name)/frames.json")
                    }
                } else {
                    inputs.append(name)
                }
            }
            return inputs
        }()

        static func hostile(_ name: String) -> URL { Fixture.url("hostile/\(name)") }

        /// The output argument a command gets in the matrix, named unlike any input so that an
        /// error line naming the output is not taken for one naming the input.
        static func output(for command: String) -> String? {
            switch command {
            case "gif": "result.gif"
            case "thumb": "result.png"
            case "explode": "result.frames"
            case "storyboard": "result.storyboard"
            default: nil
            }
        }

        /// No signal, exit 0/1/2, within `bound` seconds, under `rss` bytes.
        /// Sanitizer runtimes multiply time and memory (shadow memory); `make sanitize` says which
        /// one runs in CLIPKIT_SANITIZER and the bounds widen by these factors. `make test` checks
        /// the bounds themselves.
        static let sanitizerScale: (time: Double, memory: Int) = {
            switch ProcessInfo.processInfo.environment["CLIPKIT_SANITIZER"] {
            case "thread": return (8, 4)
            case "address": return (4, 3)
            default: return (1, 1)
            }
        }()

        static func expectBounded(_ run: ChildRun, _ what: String, seconds unscaledBound: Double, rss unscaledRSS: Int = 1 << 30,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
            let bound = unscaledBound * sanitizerScale.time, rss = unscaledRSS * sanitizerScale.memory
            #expect(run.signal == nil && !run.killed, "\(what): \(run)", sourceLocation: sourceLocation)
            #expect(run.exitStatus.map { (0...2).contains($0) } == true, "\(what): \(run)", sourceLocation: sourceLocation)
            #expect(run.seconds <= bound, "\(what): took \(String(format: "%.2f", run.seconds)) s, bound \(bound) s; \(run)",
                    sourceLocation: sourceLocation)
            #expect(run.maxRSS < rss, "\(what): peak RSS \(run.megabytes) MiB, bound \(rss >> 20) MiB", sourceLocation: sourceLocation)
        }

        /// Exit 1, exactly one (non-warning) stderr line naming `input` (and `option` if given),
        /// nothing left in `directory` but state files.
        static func expectRefused(_ run: ChildRun, input: String, option: String? = nil, in directory: URL,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(run.exitStatus == 1, "\(input): \(run)", sourceLocation: sourceLocation)
            #expect(run.errorLines.count == 1, "\(input): not one error line: \(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.errorLines.first?.contains(input) == true, "error line does not name \(input): \(run.stderr)",
                    sourceLocation: sourceLocation)
            if let option {
                #expect(run.stderr.contains(option), "\(input): message does not name \(option): \(run.stderr)", sourceLocation: sourceLocation)
            }
            #expect(Tree.outputs(directory).isEmpty, "\(input) failed but left \(Tree.outputs(directory))", sourceLocation: sourceLocation)
        }

        /// Every command over every hostile file, with `--timeout 5`.
        @Test(arguments: corpus, commands)
        func commandIsBoundedOnHostileInput(_ name: String, _ command: String) throws {
            let input = Self.hostile(name)
            let inputDirectory = input.deletingLastPathComponent()
            let before = try Data(contentsOf: input)
            let listing = Tree.walk(inputDirectory)
            let dir = Fixture.scratchDirectory("hostile-\(command)-\(name)")
            var arguments = [command, input.path, "--timeout", "5"]
            if let output = Self.output(for: command) { arguments += ["-o", output] } else { arguments.append("--json") }

            let run = try Spawn.clipkit(arguments, in: dir, killAfter: 30)
            Self.expectBounded(run, "\(command) \(name)", seconds: 5 + 3)

            if run.exitStatus == 0 {
                let output = Self.output(for: command).map { dir.appendingPathComponent($0) }
                switch command {
                case "gif":
                    let frames = try Decoded.gif(try #require(output), keep: 0)
                    #expect(!frames.delays.isEmpty, "\(name): GIF without frames")
                case "thumb":
                    try Decoded.png(try #require(output))
                case "explode":
                    let exploded = try Decoded.explode(try #require(output))
                    #expect(!exploded.files.isEmpty, "\(name): no frames exploded")
                case "storyboard":
                    let directory = try #require(output)
                    let manifest = try StoryboardManifest.read(from: directory.appendingPathComponent(StoryboardManifest.fileName))
                    let track = try ThumbnailTrack(contentsOf: directory.appendingPathComponent(manifest.vtt))
                    #expect(track.coverageProblem(durationMs: manifest.durationMs) == nil, "\(name): \(track.coverageProblem(durationMs: manifest.durationMs) ?? "")")
                default:
                    let lines = try Decoded.jsonLines(run.stdout)
                    #expect(lines.count == 1 && lines.first?["input"] as? String == input.path, "\(name): \(run.stdout)")
                }
            } else if run.exitStatus == 1 {
                Self.expectRefused(run, input: input.path, in: dir)
            } else if run.exitStatus == 2 {
                #expect(Tree.outputs(dir).isEmpty, "usage error but left \(Tree.outputs(dir))")
            }
            #expect(Tree.leftoverTemps(dir).isEmpty, "temp files left: \(Tree.leftoverTemps(dir))")
            #expect(try Data(contentsOf: input) == before, "\(name) changed")
            #expect(Tree.walk(inputDirectory) == listing, "files appeared or vanished beside \(name)")
        }

        // MARK: Crisp expectations from the README table

        /// 3000 empty 10000x10000 images: refused from the declared pixels, before any is decoded.
        @Test(arguments: ["gif_empty_images_10k.gif", "gif_empty_images_10k_nodata.gif", "gif_empty_images_10k_previous.gif"],
              ["gif", "explode", "thumb"])
        func emptyImageBombIsRefusedQuickly(_ name: String, _ command: String) throws {
            let input = Self.hostile(name)
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!], in: dir)
            Self.expectBounded(run, "\(command) \(name)", seconds: 3, rss: 300 << 20)
            Self.expectRefused(run, input: input.path, option: "--max-decoded-pixels", in: dir)
        }

        /// Frames that grow past --max-pixels mid-stream are refused when decoded, not only at the header.
        @Test(arguments: ["mjpeg_grows_4000.avi", "h264_grows_1080p.h264"], ["gif", "explode"])
        func growingFrameIsCheckedAgainstMaxPixels(_ name: String, _ command: String) throws {
            let input = Self.hostile(name)
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!, "--max-pixels", "1000000"], in: dir)
            Self.expectBounded(run, "\(command) \(name)", seconds: 10)
            Self.expectRefused(run, input: input.path, option: "--max-pixels", in: dir)
        }

        /// A 10000x10000 canvas with one pixel: exploded in bounded memory (one PNG, flat).
        @Test func explodeOfOnePixelOnBigCanvasStaysUnder600MB() throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["explode", Self.hostile("gif_canvas_10k_one_pixel.gif").path, "-o", "result.frames"], in: dir)
            Self.expectBounded(run, "explode gif_canvas_10k_one_pixel.gif", seconds: 60, rss: 600 << 20)
            #expect(run.exitStatus == 0, "\(run)")
            if run.exitStatus == 0 {
                let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
                #expect(exploded.files.count == 1)
                let size = try PNGReader.size(of: dir.appendingPathComponent("result.frames/\(exploded.files[0])"))
                #expect(size == (10000, 10000))
            }
        }

        /// `explode counter.mp4 --fps 1e9`: a usage error, nothing written.
        @Test func explodeWithAbsurdFPSIsAUsageError() throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["explode", Fixture.url("video/counter.mp4").path, "--fps", "1e9", "-o", "result.frames"], in: dir)
            Self.expectBounded(run, "explode --fps 1e9", seconds: 5)
            #expect(run.exitStatus == 2, "\(run)")
            #expect(run.stderr.contains("--fps"), "\(run.stderr)")
            #expect(Tree.outputs(dir).isEmpty, "left \(Tree.outputs(dir))")
        }

        /// README, command-line cases: absurd --fps and --speed are exit 2 with one line naming the option.
        @Test(arguments: [["--fps", "1e9"], ["--fps", "0"], ["--fps", "nan"], ["--fps", "inf"], ["--speed", "1e-9"], ["--speed", "1e300"]])
        func absurdRateIsOneLineUsageError(_ option: [String]) throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["gif", Fixture.url("video/counter.mp4").path, "-o", "result.gif"] + option, in: dir)
            Self.expectBounded(run, "gif \(option)", seconds: 5)
            #expect(run.exitStatus == 2, "\(run)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(option[0]), "\(run.stderr)")
            #expect(Tree.outputs(dir).isEmpty)
        }

        /// README, command-line cases: absurd times and limits end in exit 2 (or 1 past the end, or a
        /// documented meaning), never a conversion trap or a hang.
        @Test(arguments: [["gif", "--start", "1e300"], ["gif", "--duration", "1e-9"], ["gif", "--end", "-1"],
                          ["thumb", "--at", "1e308"], ["thumb", "--at", "100000000000%"],
                          ["gif", "--max-pixels", "0"], ["gif", "--max-frames", "-1"], ["gif", "--timeout", "0"], ["gif", "--jobs", "100000"]])
        func absurdNumberDoesNotTrap(_ arguments: [String]) throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([arguments[0], Fixture.url("video/counter.mp4").path, "-o", Self.output(for: arguments[0])!]
                                            + arguments.dropFirst(), in: dir)
            Self.expectBounded(run, "\(arguments)", seconds: 10)
            if run.exitStatus == 1 { #expect(run.errorLines.count == 1, "\(run.stderr)") }
            if run.exitStatus != 0 { #expect(Tree.outputs(dir).isEmpty, "left \(Tree.outputs(dir))") }
        }

        /// A PNG whose header claims 50000x50000: refused from the header, naming --max-pixels.
        @Test(arguments: ["gif", "explode", "thumb"])
        func pngHeaderBombIsRefusedByMaxPixels(_ command: String) throws {
            let input = Self.hostile("png_claims_50000x50000.png")
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!], in: dir)
            Self.expectBounded(run, "\(command) png_claims_50000x50000.png", seconds: 5, rss: 300 << 20)
            Self.expectRefused(run, input: input.path, option: "--max-pixels", in: dir)
        }

        /// Manifests naming a file outside their directory are refused before any file is opened.
        @Test(arguments: ["manifest_dotdot", "manifest_absolute", "manifest_devzero", "manifest_dotdot_bare"])
        func manifestPointingOutsideIsRefused(_ name: String) throws {
            let input = Self.hostile("\(name).frames/frames.json")
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir, killAfter: 20)
            Self.expectBounded(run, "gif \(name)", seconds: 5)
            Self.expectRefused(run, input: input.path, in: dir)
            #expect(run.stderr.contains("must be a file name in the manifest's directory"), "\(run.stderr)")
        }

        /// info reports sizes and durations from headers.
        @Test(arguments: [("gif_canvas_10k_one_pixel.gif", 10000, 10000), ("png_6000x6000_flat.png", 6000, 6000)])
        func infoReportsHeaderSize(_ name: String, _ width: Int, _ height: Int) throws {
            let run = try Spawn.clipkit(["info", Self.hostile(name).path, "--json"], in: Fixture.scratchDirectory())
            Self.expectBounded(run, "info \(name)", seconds: 5, rss: 300 << 20)
            let line = try #require(try Decoded.jsonLines(run.stdout).first)
            #expect(line["width"] as? Int == width && line["height"] as? Int == height, "\(run.stdout)")
        }

        @Test func infoReportsTheGapInDuration() throws {
            let run = try Spawn.clipkit(["info", Self.hostile("gap_700s.mkv").path, "--json"], in: Fixture.scratchDirectory())
            Self.expectBounded(run, "info gap_700s.mkv", seconds: 5)
            let line = try #require(try Decoded.jsonLines(run.stdout).first)
            let duration = try #require(line["duration_ms"] as? Int, "\(run.stdout)")
            #expect((700_000...702_000).contains(duration), "duration_ms \(duration)")
        }

        /// 4000 zero-delay images then one of 1 s: one displayed frame everywhere.
        @Test func zeroDelayFloodIsOneFrame() throws {
            let input = Self.hostile("gif_zero_delay_flood.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir)
            Self.expectBounded(explode, "explode", seconds: 30)
            let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
            #expect(exploded.delays == [100], "explode delays \(exploded.delays)")

            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir)
            Self.expectBounded(gif, "gif", seconds: 30)
            #expect(try Decoded.gif(dir.appendingPathComponent("result.gif"), keep: 0).delays.count == 1)

            let info = try Spawn.clipkit(["info", input.path, "--json"], in: dir)
            let line = try #require(try Decoded.jsonLines(info.stdout).first)
            #expect(line["frame_count"] as? Int == 1 && line["duration_ms"] as? Int == 1000, "\(info.stdout)")
        }

        /// Delays of 0 and 1 cs: explode keeps the stored delays (1992 frames, 2091 cs); gif never
        /// writes a delay under 2 cs and lasts what info says (one timing rule for both).
        @Test func delayFloodKeepsOneTimingRule() throws {
            let input = Self.hostile("gif_delay_0_1_flood.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames", "--timeout", "60"], in: dir, killAfter: 90)
            Self.expectBounded(explode, "explode", seconds: 63)
            #expect(explode.exitStatus == 0, "\(explode)")
            if explode.exitStatus == 0 {
                let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
                #expect(exploded.files.count == 1992)
                #expect(exploded.delays.reduce(0, +) == 2091)
            }

            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif", "--timeout", "60"], in: dir, killAfter: 90)
            Self.expectBounded(gif, "gif", seconds: 63)
            #expect(gif.exitStatus == 0, "\(gif)")
            let info = try Spawn.clipkit(["info", input.path, "--json"], in: dir)
            let line = try #require(try Decoded.jsonLines(info.stdout).first)
            let infoCs = try #require(line["duration_ms"] as? Int) / 10
            if gif.exitStatus == 0 {
                let delays = try Decoded.gif(dir.appendingPathComponent("result.gif"), keep: 0).delays
                #expect(delays.allSatisfy { $0 >= 2 }, "gif wrote delays under 2 cs: \(Set(delays).sorted())")
                let gifCs = delays.reduce(0, +)
                #expect(abs(gifCs - infoCs) <= 10, "gif lasts \(gifCs) cs, info says \(infoCs) cs")
            }
        }

        /// A 700 s gap: gif splits the long delay (never wrapped or clamped) or refuses by --max-duration;
        /// explode's delays fit a GIF and sum to the duration, or `clipkit gif` rejects its manifest.
        @Test func longGapIsNotClampedOrWrapped() throws {
            let input = Self.hostile("gap_700s.mkv")
            let dir = Fixture.scratchDirectory()
            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif", "--timeout", "120"], in: dir, killAfter: 150)
            Self.expectBounded(gif, "gif", seconds: 123)
            if gif.exitStatus == 0 {
                let delays = try Decoded.gif(dir.appendingPathComponent("result.gif"), keep: 0).delays
                #expect(abs(delays.reduce(0, +) - 70_100) <= 10, "GIF lasts \(delays.reduce(0, +)) cs, not 70100: \(delays)")
            } else {
                #expect(gif.stderr.contains("--max-duration"), "\(gif)")
            }

            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir, killAfter: 60)
            Self.expectBounded(explode, "explode", seconds: 30)
            #expect(explode.exitStatus == 0, "\(explode)")
            guard explode.exitStatus == 0 else { return }
            let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
            #expect(abs(exploded.delays.reduce(0, +) - 70_100) <= 10, "delays \(exploded.delays)")
            // A delay over a GIF image's 65535 cs is kept in the manifest and carried on by gif.
            let rebuild = try Spawn.clipkit(["gif", "result.frames/frames.json", "-o", "rebuilt.gif"], in: dir)
            #expect(rebuild.exitStatus == 0, "\(rebuild)")
            if rebuild.exitStatus == 0 {
                let delays = try Decoded.gif(dir.appendingPathComponent("rebuilt.gif"), keep: 0).delays
                #expect(abs(delays.reduce(0, +) - 70_100) <= 10, "rebuilt GIF lasts \(delays.reduce(0, +)) cs")
            }
        }

        /// The LZW ratio bomb (64 Mpixel from 26 KB) decodes with one index buffer and one canvas.
        @Test(arguments: ["gif", "explode", "thumb"])
        func lzwRatioBombDecodesInBoundedMemory(_ command: String) throws {
            let input = Self.hostile("gif_lzw_ratio_bomb_8k.gif")
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!, "--timeout", "60"], in: dir, killAfter: 90)
            // 64 MB of indices + 256 MB of canvas + the process itself; two canvases would pass 512 MiB.
            Self.expectBounded(run, "\(command)", seconds: 63, rss: 512 << 20)
            if run.exitStatus != 0 { #expect(run.stderr.contains("(raise it with --"), "\(run)") }
        }

        /// Transparency of a first image that covers part of the canvas is kept (never red, never black).
        @Test func partialTransparentFirstFrameKeepsAlpha() throws {
            let input = Self.hostile("gif_partial_transparent_first.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir)
            #expect(explode.exitStatus == 0, "\(explode)")
            let frame0 = try PNGReader.read(dir.appendingPathComponent("result.frames/frame_0000.png"))
            let frame1 = try PNGReader.read(dir.appendingPathComponent("result.frames/frame_0001.png"))
            #expect(frame0.width == 40 && frame0.height == 30)
            var wrong0: [String] = [], wrong1: [String] = []
            for y in 0..<30 {
                for x in 0..<40 {
                    let inside = (10..<30).contains(x) && (5..<25).contains(y)
                    let green = inside && ((x - 10) / 2 + (y - 5) / 2) % 2 == 1
                    let p = frame0.pixel(x: x, y: y)
                    if green ? (p.a != 255 || p.g < 150) : p.a != 0 { wrong0.append("(\(x),\(y))=\(p)") }
                    let blue = x < 10 && y < 10
                    let q = frame1.pixel(x: x, y: y)
                    if blue ? (q.a != 255 || q.b < 150) : (q.a != p.a) { wrong1.append("(\(x),\(y))=\(q)") }
                }
            }
            #expect(wrong0.isEmpty, "frame 0: \(wrong0.count) wrong pixels, e.g. \(wrong0.prefix(4))")
            #expect(wrong1.isEmpty, "frame 1: \(wrong1.count) wrong pixels, e.g. \(wrong1.prefix(4))")

            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir)
            #expect(gif.exitStatus == 0, "\(gif)")
            let canvas = try #require(try Decoded.gif(dir.appendingPathComponent("result.gif")).canvases.first)
            let outside = [(0, 0), (39, 29), (5, 20), (35, 2)].map { ($0, canvas.pixel(x: $0.0, y: $0.1)) }.filter { $0.1.a != 0 }
            #expect(outside.isEmpty, "gif frame 0 opaque outside the first image: \(outside)")
        }

        /// A GIF with no palette: explode and gif agree, and the only index used (declared
        /// transparent) gives a transparent frame.
        @Test func noPaletteTransparentIsTransparentEverywhere() throws {
            let input = Self.hostile("gif_no_palette_transparent.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir)
            #expect(explode.exitStatus == 0, "\(explode)")
            let exploded = try PNGReader.read(dir.appendingPathComponent("result.frames/frame_0000.png"))
            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir)
            #expect(gif.exitStatus == 0, "\(gif)")
            let converted = try #require(try Decoded.gif(dir.appendingPathComponent("result.gif")).canvases.first)
            #expect(exploded.pixels == converted.pixels, "explode and gif disagree")
            let opaque = stride(from: 3, to: exploded.pixels.count, by: 4).filter { exploded.pixels[$0] != 0 }.count
            #expect(opaque == 0, "\(opaque) of 256 pixels not transparent")
        }

        /// Mismatched PNG sizes: one canvas (2 frames) or a one-line refusal naming both sizes.
        @Test func mismatchedPNGSizes() throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["gif", Self.hostile("png_160x120_rgb.png").path, Self.hostile("png_97x31_rgba.png").path,
                                         "-o", "result.gif"], in: dir)
            Self.expectBounded(run, "gif of 160x120 and 97x31", seconds: 10)
            if run.exitStatus == 0 {
                let frames = try Decoded.gif(dir.appendingPathComponent("result.gif"))
                #expect(frames.delays.count == 2)
            } else {
                #expect(run.exitStatus == 1 && run.errorLines.count == 1, "\(run)")
                #expect(run.stderr.contains("160x120") && run.stderr.contains("97x31"), "\(run.stderr)")
                #expect(Tree.outputs(dir).isEmpty)
            }
            let big = try Spawn.clipkit(["gif", Self.hostile("png_160x120_rgb.png").path, Self.hostile("png_6000x6000_flat.png").path,
                                         "-o", "big.gif", "--timeout", "30"], in: dir, killAfter: 60)
            Self.expectBounded(big, "gif of 160x120 and 6000x6000", seconds: 33)
            if big.exitStatus == 1 { #expect(big.errorLines.count == 1, "\(big.stderr)") }
        }
    }
}

// MARK: - Situations made at test time

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
