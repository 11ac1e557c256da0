// libFuzzer target: arbitrary bytes through the video path (`make fuzz`): container probe and
// demuxer, decoder, fps sampler and scaler, as `VideoReader` runs them for every command.
import ClipKit
import FuzzDriver
import Foundation

/// libavformat reads from a file: one per fuzzer process, rewritten for every input.
private let path = "/dev/shm/clipkit-fuzz-video-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVideo(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else { return 0 }
    // Small limits keep each run fast; errors are expected, crashes and hangs are findings.
    var limits = Limits()
    limits.maxPixels = 1 << 20
    limits.timeout = 2
    limits = limits.started()
    guard let reader = try? VideoReader(url: URL(fileURLWithPath: path), limits: limits) else { return 0 }
    var options = FrameReadOptions(fps: 5, maxFrames: 20, size: .width(64))
    options.limits = limits
    options.threadCount = 1
    guard let frames = try? reader.frames(options: options) else { return 0 }
    // Joins the decode thread before the next input rewrites the file.
    defer { frames.cancel() }
    var count = 0
    while count < 20, let frame = try? frames.next() {
        let image = frame.image
        precondition(image.width >= 1 && image.width <= 64 && image.height >= 1, "frame \(count) is \(image.width)x\(image.height)")
        precondition(image.pixels.count == image.width * image.height * 4, "frame \(count): \(image.pixels.count) bytes")
        precondition(frame.time.isFinite && frame.sourceTime.isFinite, "frame \(count) at \(frame.time) (\(frame.sourceTime))")
        count += 1
    }
    return 0
}

@main
enum Entry {
    static func main() { runFuzzer(fuzzVideo) }
}
