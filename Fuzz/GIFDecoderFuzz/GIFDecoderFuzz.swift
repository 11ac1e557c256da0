// libFuzzer target: arbitrary bytes through the GIF decoder and compositor, in memory (`make fuzz`).
import ClipKit
import FuzzDriver
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Small limits keep each run fast; errors are expected, crashes and hangs are findings.
    var limits = Limits()
    limits.maxPixels = 1 << 20
    limits.maxDecodedPixels = 1 << 24
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let animation = try? GIFAnimation(bytes: bytes, name: "fuzz.gif", limits: limits) else { return 0 }
    var frames = 0
    while frames < 512, let frame = try? animation.next() {
        precondition(frame.canvas.width == animation.canvasWidth && frame.canvas.height == animation.canvasHeight)
        frames += 1
    }
    return 0
}

@main
enum Entry {
    static func main() { runFuzzer(fuzzGIF) }
}
