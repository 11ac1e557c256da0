// libFuzzer target: arbitrary bytes through the GIF decoder and compositor (`make fuzz`).
import ClipKit
import FuzzDriver
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

@main
enum Entry {
    static func main() { runFuzzer(fuzzGIF) }
}
