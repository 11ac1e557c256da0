// Thumbnails: upright, scaled, frame-accurate, skipping black leaders, PNG bytes on disk.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ThumbnailerTests {
    func thumb(_ name: String, _ options: ThumbnailOptions = ThumbnailOptions()) throws -> RGBAImage {
        try Thumbnailer(options: options).thumbnail(of: Fixture.url("video/\(name)"))
    }

    @Test func rotatedClipComesOutUpright() throws {
        // Stored 320x240 quadrants TL red, TR green, BL blue, BR white; shown turned 90 clockwise,
        // the top-left of the picture is the stored bottom-left (blue), top-right is red.
        let image = try thumb("rotated90.mov", ThumbnailOptions(size: .original))
        #expect(image.width == 240 && image.height == 320)
        let tl = image.pixel(x: 20, y: 20), tr = image.pixel(x: 220, y: 20)
        let bl = image.pixel(x: 20, y: 300), br = image.pixel(x: 220, y: 300)
        #expect(tl.b > 200 && tl.r < 50, "top-left is blue: \(tl)")
        #expect(tr.r > 200 && tr.g < 50, "top-right is red: \(tr)")
        #expect(bl.r > 200 && bl.g > 200 && bl.b > 200, "bottom-left is white: \(bl)")
        #expect(br.g > 200 && br.r < 50, "bottom-right is green: \(br)")

        let ccw = try thumb("rotated270.mov", ThumbnailOptions(size: .original))
        #expect(ccw.width == 240)
        #expect(ccw.pixel(x: 20, y: 20).g > 200, "270: top-left is the stored top-right (green)")
        let half = try thumb("rotated180.mov", ThumbnailOptions(size: .original))
        #expect(half.width == 320)
        let p = half.pixel(x: 20, y: 20)
        #expect(p.r > 200 && p.g > 200 && p.b > 200, "180: top-left is the stored bottom-right (white)")
    }

    @Test func defaultFitsIn320() throws {
        let image = try thumb("rotated90.mov")
        #expect(image.width == 240 && image.height == 320)
        let motion = try thumb("motion.mp4", ThumbnailOptions(size: .fit(width: 100, height: 100)))
        #expect(motion.width == 100 && motion.height == 56)
    }

    @Test func atTimeIsTheExactFrame() throws {
        // 2.5 s is frame 75 of the 30 fps counter; GOP 30 means a seek lands on 60 and decodes forward.
        let image = try thumb("counter.mp4", ThumbnailOptions(position: .seconds(2.5)))
        #expect(counterFrame(image.pixel(x: 5, y: 5)) == 75)
        let quarter = try thumb("counter.mp4", ThumbnailOptions(position: .fraction(0.25)))
        #expect(counterFrame(quarter.pixel(x: 5, y: 5)) == 30)
        let last = try thumb("counter.mp4", ThumbnailOptions(position: .fraction(1)))
        #expect(counterFrame(last.pixel(x: 5, y: 5)) == 119)
    }

    @Test func skipsBlackLeader() throws {
        let plain = try thumb("black_start.mp4")
        #expect(BlackFrameDetector.isBlank(plain))
        let skipped = try thumb("black_start.mp4", ThumbnailOptions(skipBlankWithin: 10))
        #expect(!BlackFrameDetector.isBlank(skipped))
        // Nothing but real content: the first frame is kept.
        let counter = try thumb("counter.mp4", ThumbnailOptions(skipBlankWithin: 10))
        #expect(counterFrame(counter.pixel(x: 5, y: 5)) == 0)
    }

    @Test func stillImages() throws {
        #expect(try thumb("still.png").width == 64)
        #expect(try thumb("still.jpg").height == 48)
    }

    /// An audio file's cover art is its thumbnail, as ffmpegthumbnailer gives it: the one
    /// picture, whatever time or pick is asked for; `--count 3` writes it once, and says so.
    /// Audio without a cover still has no picture.
    @Test func coverArtIsTheThumbnail() throws {
        let cover = try thumb("cover_art.m4a", ThumbnailOptions(size: .original))
        #expect(cover.width == 64 && cover.height == 64 && cover.isOpaque)
        // The 64x64 testsrc2 picture: its colour bars and gradients, not a blank frame.
        #expect(Set(stride(from: 0, to: cover.pixels.count, by: 4).map { Array(cover.pixels[$0..<$0 + 3]) }).count > 20)
        #expect(!BlackFrameDetector.isBlank(cover))
        #expect(try thumb("cover_art.m4a", ThumbnailOptions(position: .seconds(0.8), size: .original)) == cover)
        #expect(try thumb("cover_art.m4a", ThumbnailOptions(size: .original, pick: .best)) == cover)
        #expect(try thumb("cover_art.m4a", ThumbnailOptions(size: .fit(width: 32, height: 32))).width == 32)

        var three = ThumbnailOptions(size: .original, pick: .best)
        three.count = 3
        let dir = Fixture.scratchDirectory()
        let result = try Thumbnailer(options: three).writeThumbnail(of: Fixture.url("video/cover_art.m4a"), to: dir.appendingPathComponent("t.png"))
        #expect(result.urls.count == 1 && result.warnings.contains { $0.contains("cover art") }, "\(result.warnings)")
        #expect(try PNGReader.read(result.urls[0]) == cover)

        #expect(throws: ClipKitError.noVideoStream(path: Fixture.url("video/audio_only.m4a").path)) {
            _ = try thumb("audio_only.m4a")
        }
    }

    @Test func writesPNGThatReadsBack() throws {
        let image = try thumb("rotated90.mov", ThumbnailOptions(size: .fit(width: 60, height: 60)))
        let dir = Fixture.scratchDirectory()
        let url = dir.appendingPathComponent("t.png")
        try PNGWriter.write(image, to: url, channels: .rgb)
        let back = try PNGReader.read(url)
        #expect(back == image)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(leftovers == ["t.png"], "no temp files left")
        // Same input, same bytes.
        #expect(try PNGWriter.encode(image, channels: .rgb) == Array(Data(contentsOf: url)))
    }
}

@Suite struct GIFInputTests {
    @Test func gifFramesAreCompositedLikeExplode() throws {
        // Frame 2 of a restore-previous GIF, read as video at its display time, is the reference frame.
        let url = Fixture.url("gif-test-suite/gifs/animated_transparent_frame_restoreprev_loop.gif")
        let reader = try VideoReader(url: url)
        #expect(reader.info.codec == "gif" && reader.info.frameCount == 4)
        let frames = try reader.frames(options: FrameReadOptions())
        var images: [RGBAImage] = []
        while let frame = try frames.next() { images.append(frame.image) }
        #expect(images.count == 4)
        for (n, image) in images.enumerated() {
            let expected = try PNGReader.read(Fixture.url("gif-test-suite/gifs/frames/animated_transparent_frame_restoreprev_loop-\(n).png"))
            #expect(image == expected, "frame \(n)")
        }
    }

    @Test func damagedGIFStillGivesAThumbnailAndAGIF() throws {
        let url = Fixture.url("gif/truncated.gif")
        let image = try Thumbnailer(options: ThumbnailOptions(size: .original)).thumbnail(of: url)
        #expect(image.width > 0)
        let out = Fixture.scratchDirectory().appendingPathComponent("re.gif")
        let result = try GIFConverter().convert(video: Fixture.url("gif-test-suite/gifs/animated_loop_variable_delay.gif"), to: out)
        // Variable delays survive a GIF-to-GIF conversion at the default 10 fps ticks.
        let decoder = try GIFDecoder(url: out)
        let delays = try decoder.remainingDelays()
        let source = try GIFDecoder(url: Fixture.url("gif-test-suite/gifs/animated_loop_variable_delay.gif")).remainingDelays()
        #expect(delays.reduce(0, +) == source.reduce(0, +))
        #expect(result.frameCount == source.count, "\(delays) vs \(source)")
    }
}
