// Figures for bench/webmp4.py, not a check: writes WebP and MP4 from the bench's 10 s 720p clip (CLIPKIT_MEASURE=1).
import Foundation
import Testing
import TestSupport
@testable import ClipKit

/// Run with `CLIPKIT_MEASURE=1 swift test --filter AnimationMeasureTests` (after
/// `bash bench/gen_inputs.sh quick`): decodes bench/cache/src10_720p.mp4 at 10 fps, 480 px wide
/// (clipkit gif's defaults) and writes each variant into `CLIPKIT_MEASURE_OUT` (default
/// /tmp/clipkit-measure), printing bytes and encode time; `python3 bench/webmp4.py --files ...`
/// then scores them. `CLIPKIT_MEASURE_SWEEP=1` adds the settings tried to choose the defaults.
@Suite struct AnimationMeasureTests {
    @Test func measureBenchClip() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["CLIPKIT_MEASURE"] == "1" else { return }
        let source = Fixture.root.appendingPathComponent("bench/cache/src10_720p.mp4")
        let out = URL(fileURLWithPath: environment["CLIPKIT_MEASURE_OUT"] ?? "/tmp/clipkit-measure")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let sequence = try VideoReader(url: source).frames(options: FrameReadOptions(fps: 10, size: .width(480)))
        var frames: [VideoFrame] = []
        while let frame = try sequence.next() { frames.append(frame) }
        let duration = try #require(sequence.duration)

        var variants: [(name: String, format: AnimationFormat, options: AnimationOptions)] = [
            ("default", .webp, AnimationOptions()),
            ("default", .mp4, AnimationOptions()),
        ]
        if environment["CLIPKIT_MEASURE_SWEEP"] == "1" {
            for quality in [70.0, 75, 85, 90] { variants.append(("q\(Int(quality))", .webp, AnimationOptions(quality: quality))) }
            var method2 = AnimationOptions()
            method2.webpMethod = 2
            variants.append(("m2", .webp, method2))
            for preset in ["veryfast", "faster", "medium"] {
                for crf in [21.0, 23, 25] {
                    var options = AnimationOptions(crf: crf)
                    options.x264Preset = preset
                    variants.append(("\(preset)-crf\(Int(crf))", .mp4, options))
                }
            }
            for bFrames in [3] {
                var options = AnimationOptions()
                options.x264BFrames = bFrames
                variants.append(("bf\(bFrames)", .mp4, options))
            }
            for lookahead in [20, 40] {
                var options = AnimationOptions()
                options.x264Lookahead = lookahead
                variants.append(("la\(lookahead)", .mp4, options))
            }
        }
        for variant in variants {
            let url = out.appendingPathComponent("\(variant.name).\(variant.format.rawValue)")
            let started = Date()
            let writer = try AnimationWriter(destination: url, format: variant.format, options: variant.options,
                                             width: frames[0].image.width, height: frames[0].image.height, frameRate: 10)
            for frame in frames { try writer.add(frame.image, time: frame.time) }
            try writer.finish(duration: duration)
            try writer.commit()
            let seconds = Date().timeIntervalSince(started)
            print("MEASURE \(url.lastPathComponent) bytes=\(writer.byteCount) seconds=\(String(format: "%.3f", seconds)) frames=\(frames.count)")
        }
    }
}
