// Runs a command's job over every input: expands directories, names outputs, skips up-to-date
// work, runs --jobs at once, prints one line per failure (and JSON reports), sets the exit code.
import ArgumentParser
import ClipKit
import Foundation

struct InputRunner {
    let batch: BatchOptions
    /// The output file extension ("png", "gif") or nil when outputs are directories (explode).
    let outputExtension: String?
    /// Describes the options that shape the output: a change redoes up-to-date outputs.
    let fingerprint: String

    /// Where each input goes. File outputs: `-o FILE` with one input; inside `-o DIR/` (or an
    /// existing directory), mirroring sub-directories of directory inputs; else the current
    /// directory. Directory outputs (explode): `-o` itself with one input, `-o/NAME.frames` with several.
    func destination(for input: BatchInput, output: String?, inputCount: Int) throws -> URL {
        let name = input.url.deletingPathExtension().lastPathComponent + (outputExtension.map { "." + $0 } ?? ".frames")
        var base = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        if let output {
            let single = inputCount == 1 && input.relativeDirectory.isEmpty
            if outputExtension == nil {
                if single { return URL(fileURLWithPath: output, isDirectory: true) }
            } else if !OutputPlan.isDirectoryTarget(output) {
                guard single else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "with several inputs, -o must be a directory (end it with /)")
                }
                return URL(fileURLWithPath: output)
            }
            base = URL(fileURLWithPath: output, isDirectory: true)
        }
        let directory = input.relativeDirectory.isEmpty ? base : base.appendingPathComponent(input.relativeDirectory, isDirectory: true)
        return directory.appendingPathComponent(name)
    }

    /// Expands `paths`, then runs `job(input, destination)` for each. Throws `ExitCode(1)` when
    /// any input failed and `ExitCode(2)` for usage errors (before anything is written).
    func run(_ paths: [String], output: String?, job: @escaping @Sendable (BatchInput, URL) throws -> Report) throws {
        var inputs: [BatchInput] = []
        var destinations: [URL] = []
        try Self.validate {
            var scanner = InputScanner(recursive: batch.recursive, followLinks: batch.followLinks)
            if let output { scanner.excluded = [URL(fileURLWithPath: output).standardizedFileURL.path] }
            inputs = scanner.expand(paths)
            for input in inputs { destinations.append(try destination(for: input, output: output, inputCount: inputs.count)) }
            // Two inputs with one output name (a.mp4 and a.mov) would overwrite each other: refuse
            // before anything runs.
            var claimed: [String: URL] = [:]
            for (input, destination) in zip(inputs, destinations) where input.problem == nil {
                let key = destination.standardizedFileURL.path
                if let other = claimed[key] {
                    throw ClipKitError.invalidOption(name: "-o", reason: "\(other.path) and \(input.url.path) would both be written to \(key); convert them in separate runs or rename one")
                }
                claimed[key] = input.url
            }
            try OutputPlan.prepare(output: output)
        }
        let inputURLs = inputs.map(\.url)
        let state = IncrementalState()
        let fingerprint = self.fingerprint, force = batch.force, json = batch.json, outputExtension = self.outputExtension
        let destinationOf = Dictionary(zip(inputs.map(\.url), destinations), uniquingKeysWith: { first, _ in first })
        let stdoutClosed = Locked(false)
        let reports = Batch(jobs: batch.jobs ?? ProcessInfo.processInfo.activeProcessorCount).run(inputs, work: { input in
            if let problem = input.problem { throw problem }
            let destination = destinationOf[input.url]!
            try OutputPlan.checkNotInput(destination, inputs: inputURLs)
            // A directory output (explode) is whole only if its manifest is there.
            let witness = outputExtension == nil ? destination.appendingPathComponent(Exploder.manifestName) : destination
            if !force, FileManager.default.fileExists(atPath: witness.path),
               state.isUpToDate(output: destination, input: input.url, options: fingerprint) {
                return Report(input: input.url.path, outputs: [destination.path], status: .skipped, message: "up to date")
            }
            if !input.relativeDirectory.isEmpty {
                try? FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            var report = try job(input, destination)
            report.input = input.url.path
            if report.outputs.isEmpty { report.outputs = [destination.path] }
            state.record(output: destination, input: input.url, options: fingerprint)
            return report
        }, report: { report in
            if report.status == .error { Self.printError(report.message ?? "failed") }
            guard json else { return true }
            if StandardOutput.writeLine(report.jsonLine()) { return true }
            stdoutClosed.withLock { $0 = true }
            return false
        })
        let failed = reports.filter { $0.status == .error }.count
        let skipped = reports.filter { $0.status == .skipped }.count
        if !batch.quiet && (skipped > 0 || reports.count > 1) {
            var line = "clipkit: \(reports.count - failed - skipped) done"
            if skipped > 0 { line += ", \(skipped) skipped (up to date; --force redoes them)" }
            if failed > 0 { line += ", \(failed) failed" }
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        if stdoutClosed.withLock({ $0 }) {
            Self.printError("stdout was closed; \(inputs.count - reports.count) inputs not started")
            throw ExitCode(1)
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// One line on stderr, whatever the text holds: control characters (a newline in a file
    /// name) are escaped, so each failure stays one line.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data("clipkit: \(oneLine(text))\n".utf8))
    }

    /// Damage an input was decoded around, one line each. --quiet silences progress, not this:
    /// a damaged input is always reported.
    static func printWarnings(_ warnings: [String], for input: URL) {
        for warning in warnings {
            FileHandle.standardError.write(Data("clipkit: warning: \(oneLine(input.path)): \(oneLine(warning))\n".utf8))
        }
    }

    static func oneLine(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\x%02X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Runs `body` (option checks before any input is touched, or a single job): a
    /// `ClipKitError` is printed as one line and exits 2 for usage errors, 1 otherwise.
    static func validate(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ClipKitError {
            printError(error.description)
            throw ExitCode(error.isUsageError ? 2 : 1)
        }
    }
}
