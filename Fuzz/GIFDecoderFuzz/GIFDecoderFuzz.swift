// libFuzzer target: arbitrary bytes through the GIF decoder and compositor (`make fuzz`).
import ClipKit
import Foundation

private let path = "/dev/shm/clipkit-fuzz-gif-\(getpid()).gif"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = fopen(path, "wb")
    fwrite(data, 1, size, file)
    fclose(file)
    let url = URL(fileURLWithPath: path)
    // Small limits keep each run fast; errors are expected, crashes and hangs are findings.
    guard let scan = try? GIFDecoder(url: url, maxPixels: 1 << 20), let delays = try? scan.remainingDelays(),
          let decoder = try? GIFDecoder(url: url, maxPixels: 1 << 20) else { return 0 }
    var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
    _ = Compositor.displayedFrames(delays: delays)
    var images = 0
    while images < 512, let frame = try? decoder.next() {
        compositor.draw(frame, decodedPixels: decoder.decodedPixelCount)
        images += 1
    }
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
        exit(runDriver(&count, &arguments, fuzzGIF))
    }
}
