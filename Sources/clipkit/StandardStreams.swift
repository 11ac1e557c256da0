// `-` as an input (standard input) and `-o -` (the output to standard output), for pipes.
import ClipKit
import Foundation
import ClipKit

/// Rewrites the command line before parsing: an input `-` becomes a private copy of standard
/// input (`StreamSpool`: read within --timeout and `maxInputBytes`, so every later read is of a
/// regular file and seeks work), `-o -` a private output directory. After the run the single file written
/// there is copied to the real standard output, so a failure writes nothing to it; meanwhile
/// everything the command prints on stdout (--json lines) goes to stderr.
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
        if outputDirectory != nil {
            savedStdout = dup(STDOUT_FILENO)
            dup2(STDERR_FILENO, STDOUT_FILENO)
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

    /// After the run: with `-o -` and a successful run, the one file written goes to the real
    /// standard output. Returns the exit status to use.
    func finish(status: Int32) -> Int32 {
        defer { removeDirectory() }
        guard let outputDirectory, savedStdout >= 0 else { return status }
        guard status == 0 else { return status }
        let names = (FileSystemPath.contents(of: outputDirectory) ?? []).filter { !$0.hasPrefix(".") }
        guard names.count == 1, let handle = FileSystemPath.handleForReading(outputDirectory + names[0]),
              let data = try? handle.readToEnd() ?? Data() else {
            Self.say("clipkit: -o -: standard output takes one output, but this run wrote \(names.count) (\(FileSystemPath.display(names.sorted().joined(separator: ", ")))); write them to files instead")
            return 2
        }
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { write(savedStdout, $0.baseAddress! + offset, data.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                Self.say("clipkit: -o -: cannot write to standard output: \(String(cString: strerror(errno)))")
                return 1
            }
            offset += written
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
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    struct Failure: Error {
        var message: String
        var status: Int32
        init(_ message: String, status: Int32) { self.message = message; self.status = status }
    }
}
