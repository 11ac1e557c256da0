// Runs a per-input job over every input, printing one line per failure and choosing the exit code.
import ArgumentParser
import ClipKit
import Foundation

enum InputRunner {
    /// Calls `job` for each input in order; a failing input does not stop the others.
    /// Throws `ExitCode(1)` if any failed, `ExitCode(2)` for a usage error.
    static func run(_ inputs: [String], _ job: (URL) throws -> Void) throws {
        var failed = false
        for input in inputs {
            do {
                try job(URL(fileURLWithPath: input))
            } catch let error as ClipKitError where error.isUsageError {
                printError(error)
                throw ExitCode(2)
            } catch {
                printError(error)
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    static func printError(_ error: Error) {
        let text = (error as? ClipKitError)?.description ?? String(describing: error)
        FileHandle.standardError.write(Data("clipkit: \(text)\n".utf8))
    }

    /// Checks options before any input is touched; usage errors exit 2.
    static func validate(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ClipKitError {
            printError(error)
            throw ExitCode(2)
        }
    }
}
