// Runs a command's job over every input: expands directories, names outputs, skips up-to-date
// work, runs --jobs at once, prints one line per failure (and JSON reports), sets the exit code.
import ArgumentParser
import ClipKit
import Foundation

struct InputRunner {
    let batch: BatchOptions
    /// The output file extension ("png", "gif") or nil when outputs are directories (explode).
    let outputExtension: String?
    /// The extensions an output file may have, when more than `outputExtension` (`gif`: .gif,
    /// .webp, .mp4, .m4v); see `checkFileExtension`.
    var writableExtensions: [String]?
    /// The extension of output directories' default names (`NAME.frames`, `NAME.storyboard`).
    var directoryExtension = "frames"
    /// The options that shape the outputs (`fingerprintOptions` of the command's options): with
    /// the input's bytes they make the fingerprint an up-to-date output records.
    let fingerprintOptions: String
    /// The shaping options of one input, where they depend on it (`gif` of a GIF keeps its loop
    /// count): replaces `fingerprintOptions` for that input.
    var fingerprintOptionsOf: (@Sendable (URL) -> String)?
    /// Limits of one input: the up-to-date check's hashing stays within its deadline.
    var limits = Limits()
    /// Files written beside each output (`gif --poster`): up to date only when they are too.
    var companions: [URL] = []
    /// The files one input writes, from its destination (`thumb --count N`: NAME-1.png ...
    /// NAME-N.png): none may be an input, and the input is up to date only when all are.
    var outputsOf: @Sendable (URL) -> [URL] = { [$0] }

    /// The outputs named like `destination` with `extensions` (`gif --format gif,webp`: in.gif
    /// and in.webp).
    static func siblings(of destination: URL, extensions: [String]) -> [URL] {
        extensions.map { destination.deletingPathExtension().appendingPathExtension($0) }
    }

    /// Where each input goes. With several inputs, or a directory input, `-o` names a directory
    /// (with or without a trailing slash; created if missing), mirroring sub-directories of
    /// directory inputs. With one input named on the command line, `-o` is the output itself,
    /// unless it ends with `/` or is an existing directory: then the output goes inside it
    /// (explode, storyboard: `-o` is the output directory itself). Without `-o`, the current directory.
    func destination(for input: BatchInput, output: String?, directoryMode: Bool) -> URL {
        let name = input.url.deletingPathExtension().lastPathComponent + "." + (outputExtension ?? directoryExtension)
        var base = URL(fileURLWithPath: FileSystemPath.currentDirectory, isDirectory: true)
        if let output {
            if !directoryMode && (outputExtension == nil || !OutputPlan.isDirectoryTarget(output)) {
                return URL(fileURLWithPath: output, isDirectory: outputExtension == nil)
            }
            base = URL(fileURLWithPath: output, isDirectory: true)
        }
        let directory = input.relativeDirectory.isEmpty ? base : base.appendingPathComponent(input.relativeDirectory, isDirectory: true)
        return directory.appendingPathComponent(name)
    }

    /// Refuses an output file named for a format the command does not write (`mediaExtensions`):
    /// `thumb -o poster.webp` wrote PNG bytes under a .webp name, `gif -o clip.txt` a GIF (ffmpeg,
    /// which picks the format by the name too, refuses a name it cannot place). A name without
    /// such an extension, a directory and standard output are taken as they are.
    func checkFileExtension(_ output: String) throws {
        guard let outputExtension else { return }
        try Self.checkFileExtension(output, writes: writableExtensions ?? [outputExtension])
    }

    /// `checkFileExtension(_:)` for a command that writes files named with one of `writes`.
    static func checkFileExtension(_ output: String, writes: [String]) throws {
        guard output != "-", !OutputPlan.isDirectoryTarget(output) else { return }
        let named = FileSystemPath.nameExtension(of: output)
        guard mediaExtensions.contains(named), !writes.contains(named) else { return }
        let names = writes.map { "." + $0 }
        let choice = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
        throw ClipKitError.invalidOption(name: "-o", reason: "\(output) is named .\(named), a format this command does not write; name it \(choice)")
    }

    /// The extensions of picture, video and text formats a user may mean by a name: an output
    /// named with one of them must be of that format. Other suffixes (`poster.v2`,
    /// `clip.2024-01-01`) are part of the name.
    static let mediaExtensions: Set<String> = [
        "png", "apng", "jpg", "jpeg", "gif", "webp", "avif", "heic", "heif", "bmp", "tif", "tiff", "ico", "svg",
        "mp4", "m4v", "mov", "mkv", "webm", "avi", "ts", "mpg", "mpeg", "ogv", "flv", "wmv", "y4m",
        "txt", "json", "html", "htm", "md", "pdf",
    ]

    /// Refuses `-o clip.gif` for several GIFs: named like the output file, it is surely not meant as
    /// a directory (an existing directory of that name is used as it is).
    static func checkDirectoryName(_ output: String, outputExtension: String?) throws {
        guard let outputExtension, !output.hasSuffix("/"),
              URL(fileURLWithPath: output).pathExtension.lowercased() == outputExtension,
              !FileSystemPath.isDirectory(output) else { return }
        throw ClipKitError.invalidOption(name: "-o", reason: "several inputs need a directory, but \(output) is named like a .\(outputExtension) file; give a directory")
    }

    /// True when `-o` must name a directory: several inputs, or any found in a directory.
    static func isDirectoryMode(_ inputs: [BatchInput]) -> Bool {
        inputs.count > 1 || inputs.contains { $0.fromDirectory }
    }

    /// Expands `paths`, then runs `job(input, destination, fingerprint)` for each input of this
    /// shard whose outputs are not up to date. Throws `ExitCode(1)` when any input failed and
    /// `ExitCode(2)` for usage errors (before anything is written).
    func run(_ paths: [String], output: String?,
             job: @escaping @Sendable (BatchInput, URL, FingerprintSource) throws -> Report) throws {
        var inputs: [BatchInput] = []
        var destinations: [URL] = []
        var ignored = 0
        // `-o DIR/` made by the one input's job rather than here (see below).
        var directoryOfOne: String?
        try Self.validate {
            var scanner = InputScanner(recursive: batch.recursive, followLinks: batch.followLinks)
            if let output { scanner.excluded = [FileSystemPath.bytes(URL(fileURLWithPath: output).standardizedFileURL.path)] }
            let scan = scanner.scan(paths)
            inputs = scan.inputs
            ignored = scan.ignored
            // Decided over all inputs, before sharding: every shard writes to the same places.
            let directoryMode = Self.isDirectoryMode(inputs)
            if let output, !directoryMode { try checkFileExtension(output) }
            for input in inputs { destinations.append(destination(for: input, output: output, directoryMode: directoryMode)) }
            // Two inputs with one output name (a.mp4 and a.mov, a clip beside its GIF) would
            // overwrite each other: neither is converted, each failing with a line that names the
            // other, and the batch goes on (it was a usage error that stopped the whole batch, a
            // CI job's every preview, before anything was written). Decided over all inputs,
            // before sharding, so every shard and `--jobs` fails the same ones. Names are compared
            // as bytes (é and e + U+0301 are two files). The same input twice is a usage error.
            var given = Set<[UInt8]>()
            for input in inputs where input.problem == nil {
                guard given.insert(FileSystemPath.bytes(input.url.standardizedFileURL.path)).inserted else {
                    throw ClipKitError.invalidOption(name: "-o", reason: "\(StandardStreams.shown(input.url.path)) is given twice; give it once")
                }
            }
            var claimed: [[UInt8]: Int] = [:]
            for (index, (input, destination)) in zip(inputs, destinations).enumerated() where input.problem == nil {
                let key = FileSystemPath.bytes(destination.standardizedFileURL.path)
                guard let first = claimed[key] else {
                    claimed[key] = index
                    continue
                }
                let other = inputs[first]
                let shown = StandardStreams.shown(destination.standardizedFileURL.path)
                // The input's own path (printed as "-" for standard input when the line is).
                func collision(_ path: String, with rival: String) -> ClipKitError {
                    .outputFailed(path: path, reason: "\(shown) would also be written from \(StandardStreams.shown(rival)); convert them in separate runs or rename one")
                }
                if inputs[first].problem == nil { inputs[first].problem = collision(other.url.path, with: input.url.path) }
                inputs[index].problem = collision(input.url.path, with: other.url.path)
            }
            // `-o -` takes one output: refused before anything is written, not found out after.
            if StandardStreams.isStandardOutput(output) {
                let made = destinations.first.map(self.outputsOf) ?? []
                guard inputs.count == 1, made.count == 1 else {
                    let reason = inputs.count != 1 ? "\(inputs.count) inputs were found"
                        : "each input makes \(made.count) (\(made.map(\.lastPathComponent).joined(separator: ", ")))"
                    throw ClipKitError.invalidOption(name: "-o -", reason: "standard output takes one output, but \(reason); write them to files instead")
                }
            }
            if let shard = batch.shard {
                let kept = inputs.indices.filter { shard.contains(inputs[$0].shardKey) }
                inputs = kept.map { inputs[$0] }
                destinations = kept.map { destinations[$0] }
            }
            if let output, directoryMode || output.hasSuffix("/"), !inputs.isEmpty {
                try Self.checkDirectoryName(output, outputExtension: outputExtension)
                // One input makes it as its first step: a directory that cannot be made is then
                // that input's failure, its line (and `--json` record) naming it as its other
                // failures do. Several share it: made once, a failure names the directory alone.
                if inputs.count == 1 { directoryOfOne = output } else {
                    // Several inputs into something that is no directory: the usage error it is
                    // (exit 2), as `-o two.png` is (it was exit 1, named after the path alone).
                    let path = output.hasSuffix("/") ? String(output.dropLast()) : output
                    if !path.isEmpty, FileSystemPath.exists(path), !FileSystemPath.isDirectory(path) {
                        throw ClipKitError.invalidOption(name: "-o", reason: "several inputs need a directory, but \(path) is not one; give a directory")
                    }
                    try OutputPlan.prepare(directory: output)
                }
            }
        }
        let resolvedInputs = Set(inputs.map { OutputPlan.resolved($0.url) })
        let outputDirectory = directoryOfOne
        let fingerprintOptions = self.fingerprintOptions, fingerprintOptionsOf = self.fingerprintOptionsOf
        let force = batch.force, json = batch.json
        let limits = self.limits, companions = self.companions, outputsOf = self.outputsOf, shard = batch.shard.map(\.description)
        let destinationOf = Dictionary(zip(inputs.map(\.url), destinations), uniquingKeysWith: { first, _ in first })
        let stdoutClosed = Locked<String?>(nil)
        let reports = Batch(jobs: batch.jobs ?? ProcessInfo.processInfo.activeProcessorCount).run(inputs, work: { input in
            if let problem = input.problem { throw problem }
            if let outputDirectory { try OutputPlan.prepare(directory: outputDirectory) }
            let destination = destinationOf[input.url]!
            let written = outputsOf(destination)
            do {
                for output in written { try OutputPlan.checkNotInput(output, resolvedInputs: resolvedInputs) }
            } catch let error as ClipKitError {
                // The line names the input, as its other failures do (and as --json does).
                throw error.naming(input: input.url.path)
            }
            let outputs = written + companions
            for output in outputs { try OutputPlan.checkReplaceable(output, force: force) }
            let shaping = fingerprintOptionsOf?(input.url) ?? fingerprintOptions
            var fingerprint = FingerprintSource.hashingInput(options: shaping)
            // Up to date: every output records the fingerprint of these input bytes and options.
            // Only then is the input hashed up front (the hash is reused if it is not).
            if !force, outputs.allSatisfy({ FileSystemPath.exists($0.path) }) {
                let expected = Fingerprint(contentHash: try ContentHash.ofFile(input.url, deadline: limits.started().deadline),
                                           options: shaping)
                if outputs.allSatisfy({ Fingerprint.recorded(in: $0) == expected }) {
                    return Report(input: input.url.path, outputs: outputs.map(\.path), status: .skipped, reason: "up to date")
                }
                fingerprint = .known(expected)
            }
            if !input.relativeDirectory.isEmpty {
                try? FileSystemPath.createDirectories(destination.deletingLastPathComponent().path)
            }
            var report = try job(input, destination, fingerprint)
            // What the input was read around, as soon as the job is done (and in --json's `warnings`).
            Self.printWarnings(report.warnings, for: input.url)
            // Its output goes to standard output (`-o -`) before anything says it was written.
            try StandardStreams.deliverOutput(of: input.url.path)
            report.input = input.url.path
            if report.outputs.isEmpty { report.outputs = [destination.path] }
            return report
        }, report: { report in
            var report = report
            report.shard = shard
            (report.input, report.outputs, report.error) = (StandardStreams.shown(report.input), report.outputs.map(StandardStreams.shown),
                                                            report.error.map(StandardStreams.shown))
            if report.status == .error { Self.printError(report.error ?? "failed") }
            if report.status == .ok { ProgressReporter.show(report.summary) }
            guard json else { return true }
            guard let failure = StandardOutput.writeLine(report.jsonLine()) else { return true }
            stdoutClosed.withLock { $0 = $0 ?? "\(report.input): \(failure)" }
            return false
        })
        let failed = reports.filter { $0.status == .error }.count
        let skipped = reports.filter { $0.status == .skipped }.count
        if !batch.quiet && (skipped > 0 || ignored > 0 || reports.count > 1 || batch.shard != nil) {
            var line = "clipkit: \(reports.count - failed - skipped) done"
            if skipped > 0 { line += ", \(skipped) skipped (up to date; --force redoes them)" }
            if failed > 0 { line += ", \(failed) failed" }
            if ignored > 0 { line += ", \(ignored) file\(ignored == 1 ? "" : "s") without video ignored" }
            if let shard = batch.shard { line += " (shard \(shard))" }
            StandardError.write(line + "\n")
        }
        if let failure = stdoutClosed.withLock({ $0 }) {
            let unstarted = inputs.count - reports.count
            Self.printError(unstarted > 0 ? "\(failure); \(unstarted) inputs not started" : failure)
            throw ExitCode(1)
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// One line on stderr, whatever the text holds: control characters (a newline in a file
    /// name) and bytes of names that are not UTF-8 are escaped, so each failure stays one line,
    /// and the private copies standing for standard input and output are named `-` as given.
    static func printError(_ text: String) {
        StandardError.write("clipkit: \(oneLine(FileSystemPath.display(StandardStreams.shown(text))))\n")
    }

    /// Damage an input was decoded around, one line each. --quiet silences progress, not this:
    /// a damaged input is always reported.
    static func printWarnings(_ warnings: [String], for input: URL) {
        for warning in warnings {
            let name = FileSystemPath.display(StandardStreams.shown(input.path))
            StandardError.write("clipkit: warning: \(oneLine(name)): \(oneLine(FileSystemPath.display(warning)))\n")
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
    /// `ClipKitError` is printed as one line and exits 2 for usage errors, 1 otherwise (as does
    /// an output that did not reach standard output).
    static func validate(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ClipKitError {
            printError(error.description)
            throw ExitCode(error.isUsageError ? 2 : 1)
        } catch let failure as StandardStreams.DeliveryFailure {
            printError(failure.description)
            throw ExitCode(1)
        }
    }
}
