// `-` as an input (standard input) and `-o -` (the output to standard output), for pipes.
import ClipKit
import Foundation
import ClipKit

/// Rewrites the command line before parsing: an input `-` becomes a private copy of standard
/// input (`StreamSpool`: read within --timeout and `maxInputBytes`, so every later read is of a
/// regular file and seeks work), `-o -` a private output directory. The single file written
/// there is copied to the real standard output as the last step of its input's work
/// (`deliverOutput(of:)`), so a failure writes nothing to it and a failed copy is that input's
/// error; meanwhile everything the command prints on stdout (--json lines) goes to stderr.
final class StandardStreams {
    /// The most standard input copied (inputs from files have no such bound: their size is known).
    static let maxInputBytes = 4 << 30

    private(set) var arguments: [String]
    private var directory: String?
    private var outputDirectory: String?
    /// The real standard output, while fd 1 points at stderr.
    private var savedStdout: Int32 = -1

    /// nil: no `-` anywhere. Throws a one-line message and exit code for bad usage or a bad stdin.
    init(arguments: [String]) throws(Failure) {
        self.arguments = arguments
        guard let command = arguments.first, !command.hasPrefix("-") else { return }
        var inputIndex: Int?, outputIndex: Int?, inputs = 0, afterDashes = false
        var timeout: Double?
        let takesValue = DashedArguments.optionNames(of: command)?.takesValue ?? []
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if !afterDashes && (argument == "-o" || argument == "--output") && index + 1 < arguments.count {
                if arguments[index + 1] == "-" { outputIndex = index + 1 }
                index += 2
                continue
            }
            if !afterDashes && takesValue.contains(argument) && index + 1 < arguments.count {
                if argument == "--timeout" { timeout = Double(arguments[index + 1]) }
                index += 2
                continue
            }
            if !afterDashes && argument == "--" { afterDashes = true } else if argument == "-" {
                if inputIndex != nil { throw Failure("clipkit: - (standard input) given twice", status: 2) }
                inputIndex = index
                inputs += 1
            } else if afterDashes || !argument.hasPrefix("-") {
                inputs += 1
            }
            index += 1
        }
        guard inputIndex != nil || outputIndex != nil else { return }
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("clipkit-pipe-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw Failure("clipkit: cannot make a temporary directory: \(String(cString: strerror(errno)))", status: 1)
        }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.directory = directory
        setenv(Self.directoryVariable, directory, 1)
        if let outputIndex {
            guard ["gif", "thumb"].contains(command) else {
                throw Failure("clipkit: -o -: \(command) writes a directory of files, not one output for standard output", status: 2)
            }
            guard inputs == 1 else {
                throw Failure("clipkit: -o -: standard output takes one output, but \(inputs) inputs were given", status: 2)
            }
            outputDirectory = directory + "/out/"
            self.arguments[outputIndex] = outputDirectory!
        }
        if let inputIndex {
            do {
                self.arguments[inputIndex] = try StreamSpool.copy(from: STDIN_FILENO, into: directory, timeout: timeout,
                                                                  maxBytes: Self.maxInputBytes)
            } catch {
                throw Failure("clipkit: -: \(error.reason)", status: 1)
            }
        }
        if let outputDirectory {
            savedStdout = dup(STDOUT_FILENO)
            dup2(STDERR_FILENO, STDOUT_FILENO)
            let descriptor = savedStdout
            Self.spool.withLock { $0 = Spool(directory: outputDirectory, descriptor: descriptor) }
        }
    }

    deinit { removeDirectory() }

    /// Where the private directory's path is kept for `shown(_:)` (read from any thread).
    static let directoryVariable = "CLIPKIT_PIPE_DIRECTORY"

    /// `text` with the paths of the standard input's copy and of the output bound for standard
    /// output written as `-`, as the user typed them.
    static func shown(_ text: String) -> String {
        guard let directory = getenv(directoryVariable).map({ String(cString: $0) }), text.contains(directory) else { return text }
        var result = text
        for prefix in [directory + "/out/stdin.", directory + "/stdin."] {
            while let range = result.range(of: prefix) {
                let end = result[range.upperBound...].firstIndex { !($0.isLetter || $0.isNumber) } ?? result.endIndex
                result.replaceSubrange(range.lowerBound..<end, with: "-")
            }
        }
        // The output bound for standard output, named after its input.
        while let range = result.range(of: directory + "/out/") {
            let end = result[range.upperBound...].firstIndex { $0 == ":" || $0 == " " || $0 == "\"" || $0 == "\n" } ?? result.endIndex
            result.replaceSubrange(range.lowerBound..<end, with: "-")
        }
        return result
    }

    /// The output bound for standard output (`-o -`): the private directory it is made in, the
    /// real standard output, and whether it went there. Read and written by the batch's threads.
    private struct Spool {
        var directory: String
        var descriptor: Int32
        var delivered = false
    }

    private static let spool = Locked<Spool?>(nil)

    /// True when `path` (an `-o` after the rewrite) is where `-o -`'s output is made.
    static func isStandardOutput(_ path: String?) -> Bool {
        guard let path else { return false }
        return spool.withLock { $0?.directory == path }
    }

    /// Why `-o -`'s output did not reach standard output, as one of `input`'s failures
    /// ("in.mp4: cannot write to standard output: No space left on device").
    struct DeliveryFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// With `-o -`, the last step of `input`'s work: the one file its run made goes to the real
    /// standard output now, before its summary line or --json report says it was written, so a
    /// failed copy (`> /dev/full`, a closed pipe) fails the input. Does nothing without `-o -`,
    /// once it went, or when the private directory holds other than one output (`finish`
    /// refuses that).
    static func deliverOutput(of input: String) throws(DeliveryFailure) {
        let failure: String? = spool.withLock { spool in
            guard let current = spool, !current.delivered else { return nil }
            let names = (FileSystemPath.contents(of: current.directory) ?? []).filter { !$0.hasPrefix(".") }
            guard names.count == 1 else { return nil }
            spool?.delivered = true
            return copy(current.directory + names[0], to: current.descriptor)
        }
        if let failure { throw DeliveryFailure(description: "\(input): \(failure)") }
    }

    /// Copies the file at `path` to `descriptor` in blocks; nil when done, else why not.
    private static func copy(_ path: String, to descriptor: Int32) -> String? {
        let source = open(FileSystemPath.cString(path), O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { return "cannot read the output made for standard output: \(String(cString: strerror(errno)))" }
        defer { close(source) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return "cannot read the output made for standard output: \(String(cString: strerror(errno)))"
            }
            if count == 0 { return nil }
            if let failure = buffer.withUnsafeBytes({ StandardOutput.write(UnsafeRawBufferPointer(rebasing: $0[0..<count]), to: descriptor) }) {
                return failure
            }
        }
    }

    /// After the run: with `-o -` and a successful run, the one file written goes to the real
    /// standard output if its input's work did not send it. Returns the exit status to use.
    func finish(status: Int32) -> Int32 {
        defer { removeDirectory() }
        guard let outputDirectory, savedStdout >= 0, status == 0, Self.spool.withLock({ $0?.delivered == false }) else { return status }
        let names = (FileSystemPath.contents(of: outputDirectory) ?? []).filter { !$0.hasPrefix(".") }
        guard names.count == 1 else {
            Self.say("clipkit: -o -: standard output takes one output, but this run wrote \(names.count) (\(FileSystemPath.display(names.sorted().joined(separator: ", ")))); write them to files instead")
            return 2
        }
        do {
            try Self.deliverOutput(of: "-o -")
        } catch {
            Self.say("clipkit: \(error)")
            return 1
        }
        return status
    }

    private func removeDirectory() {
        if let directory { FileSystemPath.removeTree(directory) }
        directory = nil
    }

    /// On SIGINT/SIGTERM/SIGHUP (from the signal queue): the private directory, which mkdtemp made
    /// for this process alone, goes with the unfinished outputs.
    static func removeDirectoryOnSignal() {
        guard let directory = getenv(directoryVariable).map({ String(cString: $0) }),
              directory.contains("/clipkit-pipe-") else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func say(_ line: String) {
        StandardError.write(line + "\n")
    }

    struct Failure: Error {
        var message: String
        var status: Int32
        init(_ message: String, status: Int32) { self.message = message; self.status = status }
    }
}
