// Resource-limit options shared by every command, for unattended runs on untrusted files.
import ArgumentParser
import ClipKit

struct LimitOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Largest canvas or video frame accepted, in pixels (checked before decoding).", valueName: "n"))
    var maxPixels: Int = Limits().maxPixels

    @Option(parsing: .unconditional, help: ArgumentHelp("Most pixels the images of one GIF may declare together (decompression bombs), checked before decoding.", valueName: "n"))
    var maxDecodedPixels: Int = Limits().maxDecodedPixels

    @Option(parsing: .unconditional, help: ArgumentHelp("Most frames written for one input.", valueName: "n"))
    var maxFrames: Int = Limits().maxFrames

    @Option(parsing: .unconditional, help: ArgumentHelp("Longest stretch of a clip converted, in seconds.", valueName: "s"))
    var maxDuration: Double = Limits().maxDuration

    @Option(parsing: .unconditional, help: ArgumentHelp("Largest output for one input, in bytes.", valueName: "bytes"))
    var maxOutput: Int = Limits().maxOutputBytes

    @Option(parsing: .unconditional, help: ArgumentHelp("Memory one input's pictures may take, in bytes (queues shrink for large frames; work that cannot fit is refused).", valueName: "bytes"))
    var maxMemory: Int = Limits().maxMemory

    @Option(parsing: .unconditional, help: ArgumentHelp("Give up on an input after this many seconds (the others go on).", valueName: "s"))
    var timeout: Double?

    func validate() throws {
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be at least 1") }
        guard maxDecodedPixels > 0 else { throw ValidationError("--max-decoded-pixels must be at least 1") }
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be at least 1") }
        guard maxDuration > 0, maxDuration.isFinite else { throw ValidationError("--max-duration must be more than 0 seconds") }
        guard maxMemory >= 1 << 20 else { throw ValidationError("--max-memory must be at least 1048576 bytes (1 MiB)") }
        guard maxOutput > 0 else { throw ValidationError("--max-output must be at least 1 byte") }
        if let timeout, !(timeout > 0 && timeout <= 1e7) { throw ValidationError("--timeout must be more than 0 and at most 10000000 seconds") }
        guard maxDuration <= 1e9 else { throw ValidationError("--max-duration must be at most 1000000000 seconds") }
    }

    var limits: Limits {
        var limits = Limits()
        limits.maxPixels = maxPixels
        limits.maxDecodedPixels = maxDecodedPixels
        limits.maxFrames = maxFrames
        limits.maxDuration = maxDuration
        limits.maxOutputBytes = maxOutput
        limits.maxMemory = maxMemory
        limits.timeout = timeout
        return limits
    }
}
