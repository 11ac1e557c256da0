// Poster picking: the pick lands in the sharp content, several posters are distinct, the search
// window holds, odd inputs (stills, one frame, one keyframe) work, and the choice is deterministic.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct PosterPickerTests {
    /// pick.mp4 and pick_onekey.mp4 (Fixtures/make-pick-fixtures.sh): black 0-1 s, fade in 1-2 s,
    /// title card 2-4 s, blurred testsrc2 4-6 s, sharp testsrc2 6-9 s, a Mandelbrot zoom 9-12 s.
    static let content = 6.0

    func best(_ name: String, count: Int = 1, within: Double? = nil) throws -> [FrameScore] {
        try PosterPicker(options: ThumbnailOptions(pick: .best, count: count, within: within)).pick(in: Fixture.url("video/\(name)"))
    }

    /// The frame `--at time` takes, the reference a poster must equal.
    func frame(_ name: String, at time: Double, size: FrameSize = .fit(width: 320, height: 320)) throws -> RGBAImage {
        try Thumbnailer(options: ThumbnailOptions(position: .seconds(time), size: size)).thumbnail(of: Fixture.url("video/\(name)"))
    }

    /// Mean absolute difference of two equally sized pictures' RGB, 0...255.
    func meanDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        var total = 0
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            for c in 0..<3 { total += abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c])) }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    @Test(arguments: ["pick.mp4", "pick_onekey.mp4"])
    func bestLandsInTheSharpContent(_ name: String) throws {
        let picks = try best(name)
        #expect(picks.count == 1)
        let pick = try #require(picks.first)
        #expect(pick.time >= Self.content && pick.time < 12, "\(name): picked \(pick)")
        #expect(!pick.isBlank && pick.sharpness > 0.6 && pick.detail > 0.6, "\(pick)")

        // The poster is the frame at that time, at the requested size, exactly.
        var options = ThumbnailOptions(size: .fit(width: 200, height: 200), pick: .best)
        let poster = try Thumbnailer(options: options).thumbnail(of: Fixture.url("video/\(name)"))
        #expect(poster == (try frame(name, at: pick.time, size: .fit(width: 200, height: 200))))
        #expect(poster.width == 200 && poster.height == 113)
        // Not the first frame (black), nor what --skip-black finds (the fading title card).
        options = ThumbnailOptions(size: .fit(width: 200, height: 200), skipBlankWithin: 10)
        #expect(meanDifference(poster, try Thumbnailer(options: options).thumbnail(of: Fixture.url("video/\(name)"))) > 20)
    }

    @Test func blurTitleAndFadeScoreBelowTheContent() throws {
        // Every stretch's frames, scored the way the picker scores candidates.
        let reader = try VideoReader(url: Fixture.url("video/pick_onekey.mp4"))
        let sequence = try reader.frames(options: FrameReadOptions(size: PosterPicker.analysisSize))
        var frames: [FrameFeatures] = []
        while let frame = try sequence.next() { frames.append(FrameFeatures(image: frame.image, time: frame.sourceTime)) }
        let scores = FrameScore.scoring(frames, reach: PosterPicker.stabilityReach)
        func best(_ range: Range<Double>) -> Double { scores.filter { range.contains($0.time) }.map(\.score).max() ?? -1 }
        let leader = scores.filter { $0.time < 1 }
        #expect(leader.count == 10 && leader.allSatisfy { $0.isBlank }, "black leader")
        let content = best(6..<12)
        for (stretch, range) in [("fade", 1.0..<2.0), ("title card", 2.0..<4.0), ("blur", 4.0..<6.0)] {
            #expect(best(range) < content * 0.6, "\(stretch): \(best(range)) vs content \(content)")
        }
        let blurred = try #require(scores.first { $0.time >= 5 })
        let sharp = try #require(scores.first { $0.time >= 7 })
        #expect(blurred.sharpness < 0.4 && sharp.sharpness > 0.7, "\(blurred) \(sharp)")
        let title = try #require(scores.first { $0.time >= 3 })
        #expect(title.detail < 0.2, "\(title)")
    }

    @Test(arguments: ["pick.mp4", "pick_onekey.mp4"])
    func countGivesDistinctPostersInTheContent(_ name: String) throws {
        let picks = try best(name, count: 3)
        #expect(picks.count == 3)
        #expect(picks.allSatisfy { $0.time >= Self.content && !$0.isBlank }, "\(picks.map(\.time))")
        #expect(picks[0] == (try best(name)[0]), "the first of several is the single best")
        let images = try picks.map { try frame(name, at: $0.time) }
        for i in picks.indices {
            for j in picks.indices where j > i {
                // Spread: at least span / (2 count) = 12 / 6 s apart, and visibly different.
                #expect(abs(picks[i].time - picks[j].time) >= 2 - 1e-6, "\(picks.map(\.time))")
                #expect(meanDifference(images[i], images[j]) > 10, "\(picks[i].time) vs \(picks[j].time)")
            }
        }
    }

    @Test func withinLimitsTheSearch() throws {
        for name in ["pick.mp4", "pick_onekey.mp4"] {
            let pick = try #require(try best(name, within: 5).first)
            #expect(pick.time < 5 && pick.time >= 1 && !pick.isBlank, "\(name): \(pick)")
            let late = try #require(try best(name, within: 100).first)
            #expect(late.time >= Self.content, "a window past the end is the whole clip")
        }
        // Only the black leader: it is all there is, so it is the pick.
        let black = try #require(try best("pick.mp4", within: 0.5).first)
        #expect(black.isBlank && black.time < 0.5 && black.score == 0)
    }

    @Test func stillsOneFrameAndOneKeyframe() throws {
        for name in ["still.png", "still.jpg", "still_over_audio.mp4"] {
            let picks = try best(name, count: 3)
            #expect(picks.count == 1 && picks[0].time == 0, "\(name): \(picks)")
            let poster = try Thumbnailer(options: ThumbnailOptions(pick: .best)).thumbnail(of: Fixture.url("video/\(name)"))
            #expect(poster == (try Thumbnailer().thumbnail(of: Fixture.url("video/\(name)"))), "\(name)")
        }
        // VP9 with one keyframe (flat colour-coded frames, all blank: the earliest wins); the poster
        // is the frame at its time.
        let pick = try #require(try best("seek_onekey.webm").first)
        #expect(pick.time == 0 && pick.isBlank, "\(pick)")
        let poster = try Thumbnailer(options: ThumbnailOptions(pick: .best)).thumbnail(of: Fixture.url("video/seek_onekey.webm"))
        #expect(poster == (try frame("seek_onekey.webm", at: pick.time)))
    }

    @Test func writesEveryPosterAndIsDeterministic() throws {
        let dir = Fixture.scratchDirectory()
        let options = ThumbnailOptions(pick: .best, count: 3)
        let destination = dir.appendingPathComponent("poster.png")
        let result = try Thumbnailer(options: options).writeThumbnail(of: Fixture.url("video/pick.mp4"), to: destination)
        #expect(result.urls.map(\.lastPathComponent) == ["poster-1.png", "poster-2.png", "poster-3.png"])
        #expect(result.urls == options.outputs(for: destination) && result.picks.count == 3)
        for (url, pick) in zip(result.urls, result.picks) {
            #expect(try PNGReader.read(url) == (try frame("pick.mp4", at: pick.time)), "\(url.lastPathComponent)")
        }
        let bytes = try result.urls.map { try Data(contentsOf: $0) }
        let again = try Thumbnailer(options: options).writeThumbnail(of: Fixture.url("video/pick.mp4"), to: destination)
        #expect(again.picks == result.picks)
        #expect(try again.urls.map { try Data(contentsOf: $0) } == bytes, "same input, same bytes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["poster-1.png", "poster-2.png", "poster-3.png"],
                "no temp files")

        // A still has one frame: one file, and a note saying so.
        let still = try Thumbnailer(options: options).writeThumbnail(of: Fixture.url("video/still.png"), to: dir.appendingPathComponent("s.png"))
        #expect(still.urls.map(\.lastPathComponent) == ["s-1.png"] && still.warnings.count == 1, "\(still.warnings)")
    }

    @Test func optionsAreCheckedAndFingerprintsKept() throws {
        #expect(ThumbnailOptions().fingerprintOptions == "thumb at=first size=fit:320x320 skip-blank=off", "default unchanged")
        #expect(ThumbnailOptions(pick: .best).fingerprintOptions != ThumbnailOptions().fingerprintOptions)
        #expect(ThumbnailOptions(pick: .best, count: 2).fingerprintOptions != ThumbnailOptions(pick: .best).fingerprintOptions)
        #expect(ThumbnailOptions(pick: .best, within: 5).fingerprintOptions != ThumbnailOptions(pick: .best).fingerprintOptions)
        let bad = [ThumbnailOptions(pick: .best, count: 0), ThumbnailOptions(pick: .best, count: 101),
                   ThumbnailOptions(pick: .best, within: 0), ThumbnailOptions(pick: .best, within: -1),
                   ThumbnailOptions(pick: .best, within: .infinity), ThumbnailOptions(position: .seconds(1), pick: .best),
                   ThumbnailOptions(count: 2), ThumbnailOptions(within: 3)]
        for options in bad {
            #expect(throws: ClipKitError.self) { try options.validate() }
            #expect(throws: ClipKitError.self) { try Thumbnailer(options: options).thumbnail(of: Fixture.url("video/pick.mp4")) }
        }
        let url = URL(fileURLWithPath: "/x/clip.png")
        #expect(ThumbnailOptions(pick: .best).outputs(for: url) == [url])
        #expect(ThumbnailOptions(pick: .best, count: 2).outputs(for: url).map(\.path) == ["/x/clip-1.png", "/x/clip-2.png"])
    }

    @Test func featuresOfSyntheticPictures() throws {
        let flat = RGBAImage(width: 32, height: 32, pixels: [UInt8](repeating: 128, count: 32 * 32 * 4))
        #expect(FrameFeatures(image: flat, time: 0).isBlank, "one flat grey is blank")
        var checks = [UInt8](repeating: 255, count: 32 * 32 * 4)
        for y in 0..<32 { for x in 0..<32 where (x / 4 + y / 4) % 2 == 0 { for c in 0..<3 { checks[(y * 32 + x) * 4 + c] = 0 } } }
        let board = FrameFeatures(image: RGBAImage(width: 32, height: 32, pixels: checks), time: 0)
        #expect(!board.isBlank && board.laplacianDeviation > 100 && abs(board.entropy - 1) < 0.01)
        #expect(board.difference(from: board) == 0)
        #expect(FrameScore(board, neighbourDifference: nil).stability == 1)
        #expect(FrameScore(board, neighbourDifference: FrameScore.stabilityHalf).stability == 0.5)
    }
}
