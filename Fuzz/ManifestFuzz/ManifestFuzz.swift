// libFuzzer target: arbitrary bytes as a frames.json manifest and as a PNG (`make fuzz`).
import ClipKit
import Foundation

private let directory = "/dev/shm/clipkit-fuzz-manifest-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    mkdir(directory, 0o755)
    let bytes = Data(bytes: data, count: size)
    let manifest = URL(fileURLWithPath: directory + "/frames.json")
    let png = URL(fileURLWithPath: directory + "/frame_0000.png")
    try? bytes.write(to: manifest)
    try? bytes.write(to: png)
    _ = try? FramesManifest.read(from: manifest)
    _ = try? PNGReader.read(png, maxPixels: 1 << 20)
    return 0
}

// libFuzzer's driver, from clang's fuzzer_no_main runtime: it parses -runs=, -max_total_time=, corpus dirs.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@main
enum Entry {
    static func main() {
        var count = CommandLine.argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(runDriver(&count, &arguments, fuzzManifest))
    }
}
