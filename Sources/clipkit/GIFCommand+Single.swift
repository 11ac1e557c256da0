// `clipkit gif` from several files: image frames (PNG, JPEG), or an exploded frames.json and its frames, to one GIF.
import ArgumentParser
import ClipKit
import Foundation

extension GIFCommand {
    /// One GIF from several files (image frames, or a manifest and its frames).
    func runSingle(named: URL, inputs: [URL], _ convert: (URL) throws -> GIFResult) throws {
        try InputRunner.validate {
            if let file = output.first { try InputRunner.checkFileExtension(file, writes: ["gif"]) }
            do {
                try OutputPlan.prepare(output: output.first)
            } catch let error as ClipKitError {
                // The GIF's directory cannot be made: the input's failure, named after it.
                throw error.naming(input: inputs[0].path)
            }
            let runner = InputRunner(batch: batch, outputExtension: "gif", fingerprintOptions: "")
            let destination = runner.destination(for: BatchInput(url: named), output: output.first, directoryMode: false)
            do {
                try OutputPlan.checkNotInput(destination, inputs: inputs)
            } catch let error as ClipKitError {
                throw error.naming(input: inputs[0].path)
            }
            do {
                try OutputPlan.checkReplaceable(destination, force: batch.force)
            } catch let error as ClipKitError {
                throw error.naming(input: inputs[0].path)
            }
            let started = Date()
            let result: GIFResult
            do {
                result = try convert(destination)
            } catch let error as ClipKitError where error.path == destination.path {
                // A GIF that cannot be written is one of the input's failures, named after it.
                throw error.naming(input: inputs[0].path)
            }
            try StandardStreams.deliverOutput(of: inputs[0].path)
            let reporter = ProgressReporter(enabled: !batch.quiet && !batch.json, live: false)
            if let line = reporter.summary(of: result, seconds: Date().timeIntervalSince(started)) { ProgressReporter.show([line]) }
            if batch.json {
                // The input is the first file read (the first image, or the manifest), not the name
                // the GIF was derived from (DIR.json for DIR/frames.json).
                var report = Report(result)
                report.input = inputs[0].path
                report.seconds = Date().timeIntervalSince(started)
                if let failure = StandardOutput.writeLine(report.jsonLine()) {
                    InputRunner.printError("\(StandardStreams.shown(inputs[0].path)): \(failure)")
                    throw ExitCode(1)
                }
            }
        }
    }
}

extension GIFOptions {
    /// These options recording a fingerprint (of the first file's bytes), which marks the GIF
    /// assembled from several files as clipkit's: a rerun may replace it (`OutputPlan.checkReplaceable`).
    var recordingFingerprint: GIFOptions {
        var options = self
        options.fingerprint = .hashingInput(options: fingerprintOptions)
        return options
    }
}
