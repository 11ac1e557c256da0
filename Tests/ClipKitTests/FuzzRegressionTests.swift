// Inputs kept from `make fuzz` (Fixtures/fuzz) and the broken GIFs of Fixtures/bad decode or fail cleanly, from files and from memory alike.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct FuzzRegressionTests {
    /// Every kept GIF either fails with a `ClipKitError` when opened or decodes to frames of
    /// the canvas size, and decoding it from memory gives exactly the frames decoding the file does.
    @Test func decodersSurviveKeptInputs() throws {
        var limits = Limits()
        limits.maxPixels = 1 << 22
        var opened = 0, refused = 0
        for folder in [Fixture.url("fuzz"), Fixture.url("bad")] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".gif") {
                let url = folder.appendingPathComponent(name)
                let fromFile: GIFAnimation
                do {
                    fromFile = try GIFAnimation(url: url, limits: limits)
                } catch is ClipKitError {
                    refused += 1
                    continue
                }
                let bytes = [UInt8](try Data(contentsOf: url))
                let fromMemory = try GIFAnimation(bytes: bytes, name: name, limits: limits)
                #expect(fromMemory.scan == fromFile.scan, "\(name): the scans differ")
                var frames = 0
                while frames < 2000, let frame = try fromFile.next() {
                    let same = try fromMemory.next()
                    #expect(frame.canvas.width == fromFile.canvasWidth && frame.canvas.height == fromFile.canvasHeight, "\(name)")
                    #expect(same?.canvas == frame.canvas && same?.delay == frame.delay, "\(name): frame \(frames) differs from memory")
                    frames += 1
                }
                #expect(frames == fromFile.scan.frames.count || frames == 2000, "\(name): \(frames) of \(fromFile.scan.frames.count) frames")
                opened += 1
            }
        }
        // The corpus holds both kinds; a decoder that refused everything (or nothing) would fail here.
        #expect(opened >= 5, "opened \(opened)")
        #expect(refused >= 3, "refused \(refused)")
    }

    /// Clips that crashed the video path decode (or fail with a `ClipKitError`), frames intact.
    @Test func videoPathSurvivesKeptClips() throws {
        let folder = Fixture.url("fuzz/video")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let url = folder.appendingPathComponent(name)
            do {
                let reader = try VideoReader(url: url)
                let frames = try reader.frames(options: FrameReadOptions(fps: 5, size: .width(64)))
                while let frame = try frames.next() {
                    #expect(frame.image.pixels.count == frame.image.width * frame.image.height * 4, "\(name)")
                }
                _ = try Thumbnailer().thumbnail(of: url)
            } catch is ClipKitError {
                // A clean refusal is fine; a crash is not.
            }
        }
    }
}
