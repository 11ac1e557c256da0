// libFuzzer target: arbitrary bytes as a frames.json manifest and as a PNG (`make fuzz`).
import ClipKit
import FuzzDriver
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

@main
enum Entry {
    static func main() { runFuzzer(fuzzManifest) }
}
