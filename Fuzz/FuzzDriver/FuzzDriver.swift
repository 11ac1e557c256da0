// Starts libFuzzer's driver (from clang's fuzzer_no_main runtime) with a target's callback, for `make fuzz`.
import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// Runs libFuzzer over `callback` with the process's arguments (-runs=, -max_total_time=, corpus
/// directories) and exits with its status.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    var count = CommandLine.argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(runDriver(&count, &arguments, callback))
}
