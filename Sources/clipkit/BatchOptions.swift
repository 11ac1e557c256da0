// The options every command shares for batch use: recursion, parallel jobs, JSON reports, redo, quiet.
import ArgumentParser
import ClipKit
import Foundation

struct BatchOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Search directories given as inputs recursively (outputs mirror the tree).")
    var recursive = false

    @Flag(help: "In directories, follow links to sub-directories and to files outside the directory given (each file is still taken once).")
    var followLinks = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Inputs processed at once. Default: the number of cores.", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Print one JSON object per input on stdout (schema, input, outputs, status, error, reason, shard, frames, duration_ms, width, height, bytes, seconds).")
    var json = false

    @Flag(help: "Redo outputs that are up to date (those recording the fingerprint of the same input bytes and output options), replace output files clipkit did not write, and write through an output that is a symbolic link to nothing (both refused otherwise).")
    var force = false

    @Option(name: .customLong("shard"), help: ArgumentHelp("Process only shard I of N (1-based) of the inputs found: N jobs with 1/N ... N/N cover every input once (partitioned by each input's path relative to its directory).", valueName: "I/N"))
    var shardText: String?

    /// The parsed `--shard` (checked in `validate()`).
    var shard: Shard? { shardText.flatMap(Shard.init(argument:)) }

    @Flag(name: .shortAndLong, help: "Print no progress or summary (errors are still printed).")
    var quiet = false

    func validate() throws {
        if let jobs, !(1...256).contains(jobs) {
            throw ValidationError("--jobs must be 1 to 256")
        }
        try Shard.validate(shardText)
    }
}
