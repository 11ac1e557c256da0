// A clipkit run as a child process of the tests: spawned, bounded, measured.
//
// Each clipkit run is a child spawned here (posix_spawn, in a process group of its own) under
// GNU time, which forks and execs clipkit and reports that process's peak RSS. wait4 on the
// spawned child alone would not do: posix_spawn starts the child with CLONE_VM, so its
// ru_maxrss starts at the test runner's own high-water mark. A child that overruns is killed
// with its group; its pid is the group id and cannot have been reused, because the child is
// not reaped until after the kill.
import Foundation
import Testing
import TestSupport
import ClipKit
#if canImport(Glibc)
import Glibc
#endif

/// How one child ended and what it cost.
struct ChildRun: CustomStringConvertible {
    /// Exit status, nil when a signal ended it.
    var exitStatus: Int32?
    /// The signal that ended it, nil when it exited.
    var signal: Int32?
    /// Wall time from spawn to exit.
    var seconds: Double
    /// User and system CPU time of the child and what it waited for (clipkit under GNU time).
    var cpuSeconds: Double = 0
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
        return "\(end)\(killed ? " (killed by the test)" : ""), \(String(format: "%.2f", seconds)) s (CPU \(String(format: "%.2f", cpuSeconds)) s), \(megabytes) MiB; stderr: \(stderr.prefix(600))"
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
    /// killed with SIGKILL after `killAfter` s (stretched by the machine's load and the sanitizer,
    /// as the bounds are: a child that would finish is not killed because other suites hold the cores).
    /// `measure`: run it under /usr/bin/time for its peak RSS.
    static func run(_ executable: String, _ arguments: [String], in directory: URL, killAfter unstretched: Double,
                    measure: Bool = false) throws -> ChildRun {
        let killAfter = unstretched * Hostile.Inputs.loadStretch * Hostile.Inputs.sanitizerScale.time
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
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ChildRun(exitStatus: exitStatus, signal: exitStatus == nil ? signalled : nil,
                        seconds: Double(end - start) / 1e9, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                        maxRSS: maxRSS, killed: killed,
                        stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func clipkit(_ arguments: [String], in directory: URL, killAfter: Double = 40) throws -> ChildRun {
        try run(CLI.binary.path, arguments, in: directory, killAfter: killAfter, measure: true)
    }
}
