// The public API as a library user writes it (no @testable import): the README's example compiles and works.
import ClipKit
import Foundation
import Testing
import TestSupport

@Suite struct LibraryAPITests {
    @Test func readmeExample() async throws {
        let clipURL = Fixture.url("video/motion.mp4")
        let dir = Fixture.scratchDirectory()
        let gifURL = dir.appendingPathComponent("clip.gif"), pngURL = dir.appendingPathComponent("thumb.png")

        var options = GIFOptions()
        options.fps = 12
        options.size = .width(320)
        let result = try await GIFConverter(options: options).convert(video: clipURL, to: gifURL)
        #expect(result.frameCount > 1 && result.durationCentiseconds == 300 && result.bytes > 0)

        let reader = try VideoReader(url: clipURL)
        #expect(reader.info.width == 320)
        let frames = try reader.frames(options: FrameReadOptions(fps: 2, size: .fit(width: 160, height: 160)))
        var times: [Double] = []
        while let frame = try frames.next() { times.append(frame.time) }
        #expect(times == [0, 0.5, 1, 1.5, 2, 2.5])

        var count = 0
        for try await frame in try VideoReader(clipURL, FrameReadOptions(fps: 1)).frames {
            #expect(frame.image.width == 320)
            count += 1
        }
        #expect(count == 3)

        let thumbnail = try await Thumbnailer(options: ThumbnailOptions(position: .fraction(0.1))).thumbnail(of: clipURL)
        try PNGWriter.write(thumbnail, to: pngURL, channels: .rgb)
        #expect(try PNGReader.read(pngURL).width == 320)

        var best = ThumbnailOptions(pick: .best, count: 2)
        best.size = .width(160)
        for poster in try await Thumbnailer(options: best).posters(of: Fixture.url("video/pick.mp4")) {
            #expect(poster.score.time >= 6 && poster.image.width == 160)  // poster.score: time, score, sharpness, ...
        }
        let picks = try await PosterPicker(options: ThumbnailOptions(pick: .best, within: 5)).pick(in: Fixture.url("video/pick.mp4"))
        #expect(picks.count == 1 && picks[0].time < 5)

        let gif = try GIFAnimation(url: gifURL)
        var delays: [Int] = []
        while let frame = try gif.next() {
            #expect(frame.canvas.width == 320)
            delays.append(frame.delay)
        }
        #expect(delays.reduce(0, +) == 300 && delays.count == result.frameCount)

        let posterURL = dir.appendingPathComponent("poster.png")
        _ = try await GIFConverter(options: options).convert(video: clipURL, to: dir.appendingPathComponent("b.gif"), poster: posterURL)
        #expect(try PNGReader.read(posterURL).width == 320)

        let boardURL = dir.appendingPathComponent("clip.storyboard")
        let board = try await Storyboarder(options: StoryboardOptions(spacing: .interval(0.5))).makeStoryboard(of: clipURL, in: boardURL)
        #expect(board.manifest.tiles.count == 6 && board.manifest.sheets.map(\.file) == ["sheet_0.jpg"])
        #expect(FileManager.default.fileExists(atPath: boardURL.appendingPathComponent("storyboard.vtt").path))

        do {
            _ = try VideoReader(url: Fixture.url("video/audio_only.m4a"))
            Issue.record("audio-only file opened")
        } catch ClipKitError.noVideoStream(let path) {
            #expect(path.hasSuffix("audio_only.m4a"))
        }
    }
}
