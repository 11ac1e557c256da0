// Runs the built clipkit binary in a directory and captures its exit status and output.
import Foundation

enum CLI {
    /// The clipkit executable in the products directory, beside the test bundle.
    static let binary: URL = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: directory.appendingPathComponent("clipkit").path) {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("clipkit")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// `started` is handed the child process once it runs (to stop it, say, if it hangs);
    /// `environment` is set over the test's own; `standardOutput`, when given, takes the child's
    /// stdout instead of the pipe `Result.stdout` reads (a file or device: `> /dev/full`), and
    /// `standardError` stderr (then `Result.stderr` is empty).
    @discardableResult
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:],
                    standardOutput: FileHandle? = nil, standardError: FileHandle? = nil,
                    started: (Process) -> Void = { _ in }) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = standardOutput ?? output
        process.standardError = standardError ?? errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The parent's copy of the pipe's writing end closed, so its reader ends when the child's does.
        if standardOutput != nil { try output.fileHandleForWriting.close() }
        if standardError != nil { try errors.fileHandleForWriting.close() }
        started(process)
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let out = Box<Data>()
        let reader = Thread { out.set(output.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out.wait(), as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs another program quietly and returns its exit status.
    static func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Every file name under `directory`, sorted, hidden ones included (so stray temp files,
    /// or anything else beside the outputs, show).
    static func files(in directory: URL) -> [String] {
        let names = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        return names.sorted()
    }
}

/// A value handed from one thread to another: `wait()` blocks until `set` has run.
final class Box<Value>: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var value: Value?

    func set(_ newValue: Value) {
        lock.lock(); value = newValue; lock.unlock()
        ready.signal()
    }

    /// The value, waiting for it at most `timeout` seconds (nil if it did not come in time).
    func wait(timeout: Double) -> Value? {
        guard ready.wait(timeout: .now() + timeout) == .success else { return nil }
        ready.signal()
        lock.lock(); defer { lock.unlock() }
        return value
    }

    func wait() -> Value {
        ready.wait()
        ready.signal()
        lock.lock(); defer { lock.unlock() }
        return value!
    }
}
