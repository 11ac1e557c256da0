// The options every command shares for batch use: recursion, parallel jobs, JSON reports, redo, quiet.
import ArgumentParser
import ClipKit
import Foundation

struct BatchOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Search directories given as inputs recursively (outputs mirror the tree).")
    var recursive = false

    @Flag(help: "In directories, follow links to sub-directories and to files outside the directory given (each file is still taken once).")
    var followLinks = false

    @Option(help: ArgumentHelp("Inputs processed at once. Default: the number of cores.", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Print one JSON object per input on stdout (input, outputs, status, error, frames, duration_ms, width, height, bytes, seconds).")
    var json = false

    @Flag(help: "Redo outputs that are up to date (newer than their input and made with the same options).")
    var force = false

    @Flag(name: .shortAndLong, help: "Print no progress or summary (errors are still printed).")
    var quiet = false

    func validate() throws {
        if let jobs, !(1...256).contains(jobs) {
            throw ValidationError("--jobs must be 1 to 256")
        }
    }
}
