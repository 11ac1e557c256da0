// Entry point: parses the command line, maps usage errors to exit 2 and installs signal cleanup.
import ArgumentParser
import ClipKit
import Foundation

struct Clipkit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clipkit",
        abstract: "Short video clips to GIFs, frames, thumbnails and storyboards.",
        discussion: """
        Exit codes: 0 every input done, 1 at least one input failed (the others are still \
        written), 2 bad usage. Errors are one line per input on stderr.
        """,
        version: "0.1.0",
        subcommands: [GIFCommand.self, ExplodeCommand.self, ThumbCommand.self, StoryboardCommand.self, InfoCommand.self, ReportCommand.self]
    )
}

// FFmpeg's libraries are loaded lazily (ClipKit's FFmpegLibraries); LD_BIND_NOW would have bound
// their calls to nothing at start-up, so run again without it.
if let now = getenv("LD_BIND_NOW"), now.pointee != 0 {
    unsetenv("LD_BIND_NOW")
    execv("/proc/self/exe", CommandLine.unsafeArgv)
}

// A standard stream the caller closed (`2>&-`, `>&-`) is /dev/null opened for reading, so it
// stays closed to writes (EBADF: stdout's are that input's error, stderr's are dropped), and the
// next file opened does not take its number (an epoll descriptor of Dispatch's took 2, and what
// was meant for stderr went to it; an output's temp file could have taken 1).
for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
    let opened = open("/dev/null", O_RDONLY)
    if opened >= 0, opened != descriptor {
        dup2(opened, descriptor)
        close(opened)
    }
}

// No command at all is bad usage (as git and ffmpeg treat it): the help, on standard error, exit 2.
if CommandLine.argc < 2 {
    StandardError.write(Clipkit.helpMessage() + "\n")
    Foundation.exit(2)
}
let signalSources = Signals.installCleanup()
defer { withExtendedLifetime(signalSources) {} }
// From the raw argv: CommandLine.arguments replaces bytes that are not UTF-8 (a file name) with U+FFFD.
let arguments = (1..<Int(CommandLine.argc)).map { FileSystemPath.string(cString: CommandLine.unsafeArgv[$0]!) }
if let problem = DashedArguments.problem(in: arguments) {
    StandardError.write(FileSystemPath.display(problem) + "\n")
    Foundation.exit(2)
}
let streams: StandardStreams
do {
    streams = try StandardStreams(arguments: arguments)
} catch {
    StandardError.write(error.message + "\n")
    Foundation.exit(error.status)
}
/// Ends the run: standard output's spool, then the directories made for outputs and left
/// empty (`CreatedDirectories`: a failed run leaves no empty `-o DIR/` behind).
@MainActor func finish(status: Int32) -> Never {
    let code = streams.finish(status: status)
    CreatedDirectories.removeEmpty()
    Foundation.exit(code)
}
// `clipkit help NAME` for a NAME that is no command printed the general help and exited 0, as
// if the command existed: bad usage, as `clipkit NAME` is.
if streams.arguments.first == "help", streams.arguments.count > 1,
   let name = streams.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
   !Clipkit.configuration.subcommands.contains(where: { $0._commandName == name }) {
    StandardError.write("clipkit: unknown command '\(FileSystemPath.display(name))' (see clipkit --help)\n")
    finish(status: 2)
}
do {
    var command = try Clipkit.parseAsRoot(streams.arguments)
    try command.run()
    finish(status: 0)
} catch let exit as ExitCode {
    finish(status: exit.rawValue)
} catch {
    let code = Clipkit.exitCode(for: error)
    if code == .success {
        Clipkit.exit(withError: error)
    }
    // One line, as every error: ArgumentParser's own adds the option's help and the usage.
    let line = Clipkit.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
    StandardError.write("clipkit: " + FileSystemPath.display(line) + " (see clipkit --help)\n")
    finish(status: 2)
}
