// clipkit report's GIF filmstrip without explode output: the frames shown are the GIF's, their delays its delays, within the pixel budget.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct ReportFilmstripTests {
    /// Fixtures/report/filmstrip.gif as Fixtures/make-report-fixtures.py made it: frame i is one
    /// flat colour and shows for (i % 5 + 1) * 20 ms.
    static let delays = (0..<20).map { ($0 % 5 + 1) * 20 }
    static func colour(_ index: Int) -> (Int, Int, Int) { (index * 12, 255 - index * 12, (index * 97) % 256) }

    @Test func theGIFsFramesAndDelaysAreShownWithoutExplode() throws {
        let dir = Fixture.scratchDirectory()
        let gif = dir.appendingPathComponent("strip.gif")
        try FileManager.default.copyItem(at: Fixture.url("report/filmstrip.gif"), to: gif)
        let text = ReportTests.line("/clips/strip.mp4", outputs: [gif.path], extra: ["duration_ms": 1200])
        let result = try ReportWriter().write(RunSet.merge([("r", text)]), to: dir.appendingPathComponent("report"))
        let strip = try #require(result.document.clips.first?.gifFrames)
        #expect(strip.delaysMs == Self.delays)
        // 12 of the 20 frames, spread from the first to the last.
        #expect(strip.shown == [0, 1, 3, 5, 6, 8, 10, 12, 13, 15, 17, 19])
        #expect(strip.startMs(5) == 20 + 40 + 60 + 80 + 100)

        // The sheet: 80 px wide thumbnails (160x40 shrunk to 80x20) side by side, each the colour of its frame.
        let sheet = try PNGReader.read(result.directory.appendingPathComponent(try #require(strip.sheetHref)))
        #expect(sheet.width == 12 * 80 && sheet.height == 20)
        for (slot, frame) in strip.shown.enumerated() {
            let pixel = sheet.pixel(x: slot * 80 + 40, y: 10), expected = Self.colour(frame)
            #expect(abs(Int(pixel.r) - expected.0) <= 1 && abs(Int(pixel.g) - expected.1) <= 1 && abs(Int(pixel.b) - expected.2) <= 1,
                    "frame \(frame): \(pixel) vs \(expected)")
        }

        let html = try String(contentsOf: result.directory.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<summary>GIF frames (20)</summary>"))
        #expect(html.contains("<img src=\"media/clip-1-frames.png\" loading=\"lazy\""))
        let captions = strip.shown.map { "<li>#\($0 + 1) \(Self.delays[$0]) ms" }.joined()
        #expect(html.contains("<ol>\(captions)</ol>"), "\(html)")
        #expect(html.contains("<p>Delays: " + (0..<20).map { "\(Self.delays[$0]) ms" }.joined(separator: ", ") + "</p>"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: result.directory.appendingPathComponent("report.json"))) as? [String: Any]
        #expect((json?["files"] as? [String])?.contains("media/clip-1-frames.png") == true)
    }

    @Test func pastThePixelBudgetOnlyDelaysAreListed() throws {
        let dir = Fixture.scratchDirectory()
        var budget = 160 * 40 * 20 - 1  // one pixel short of decoding up to the last frame
        let strip = try #require(try GIFFilmstrip.make(from: Fixture.url("report/filmstrip.gif"), writingSheet: "sheet.png", in: dir,
                                                       budget: &budget, limits: Limits()))
        #expect(strip.delaysMs == Self.delays && strip.sheetHref == nil)
        #expect(budget == 160 * 40 * 20 - 1)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("sheet.png").path))
        // A file that is no GIF gives no filmstrip and no error.
        var more = Int.max
        #expect(try GIFFilmstrip.make(from: Fixture.url("gif/not_a_gif.gif"), writingSheet: "x.png", in: dir, budget: &more, limits: Limits()) == nil)
    }

    @Test func delaySummaryMergesRuns() {
        let strip = GIFFilmstrip(delaysMs: [100, 100, 100, 200, 100], shown: [])
        #expect(strip.delaySummary == "100 ms ×3, 200 ms, 100 ms")
        #expect(GIFFilmstrip.spread(12, over: 5) == [0, 1, 2, 3, 4] && GIFFilmstrip.spread(1, over: 5) == [0])
    }
}
