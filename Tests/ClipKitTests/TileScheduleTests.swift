// Tile times, cue boundaries, the nearest-keyframe choice and WebVTT timestamps, on numbers alone.
import Foundation
import Testing
@testable import ClipKit

@Suite struct TileScheduleTests {
    func plan(_ spacing: TileSpacing, _ duration: Double) throws -> TileSchedule {
        try TileSchedule.plan(spacing, duration: duration, path: "clip")
    }

    @Test func automaticGivesAtMostAHundredTilesAtWholeSeconds() throws {
        #expect(try plan(.automatic, 4) == TileSchedule(interval: 1, count: 4, durationMs: 4000))
        #expect(try plan(.automatic, 600) == TileSchedule(interval: 6, count: 100, durationMs: 600_000))
        #expect(try plan(.automatic, 601) == TileSchedule(interval: 7, count: 86, durationMs: 601_000))
        #expect(try plan(.automatic, 0.5) == TileSchedule(interval: 1, count: 1, durationMs: 500))
        for duration in [1.0, 99.5, 100, 100.001, 3599.9, 7200] {
            let schedule = try plan(.automatic, duration)
            #expect(schedule.count <= 100 && schedule.interval == schedule.interval.rounded(), "\(duration)")
        }
    }

    /// Tiles whose time rounds to the end (or after) are not planned: every cue lasts 1 ms or more.
    @Test func everyCueLastsAMillisecondOrMore() throws {
        #expect(try plan(.interval(1), 4.0004).count == 4)
        #expect(try plan(.interval(1), 4.0006).count == 5)
        #expect(try plan(.interval(0.001), 0.01).count == 10)
        for (spacing, duration) in [(TileSpacing.interval(0.3), 1.0), (.count(7), 2.5), (.count(1000), 1.0), (.interval(1.5), 4.5)] {
            let schedule = try plan(spacing, duration)
            let starts = (0..<schedule.count).map(schedule.startMs) + [schedule.durationMs]
            #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }, "\(spacing) over \(duration)")
        }
        #expect(throws: ClipKitError.self) { try plan(.count(1001), 1.0) }
    }

    @Test func countSpreadsEvenly() throws {
        let schedule = try plan(.count(3), 4)
        #expect(schedule.count == 3 && (0..<3).map(schedule.startMs) == [0, 1333, 2667])
    }

    func frame(_ seconds: Double) -> VideoFrame {
        VideoFrame(image: RGBAImage(width: 1, height: 1), index: 0, time: seconds, sourceTime: seconds)
    }

    /// Keyframes at 0, 1.9, 2.0 and 9 s, tiles every second to 11 s.
    @Test func nearestKeyframe() throws {
        var picker = NearestKeyframePicker(schedule: TileSchedule(interval: 1, count: 12, durationMs: 12_000))
        var chosen: [Double] = []
        for time in [0, 1.9, 2.0, 9.0] {
            chosen += picker.offer(frame(time)).map(\.frame.time)
        }
        // 1 s is nearer 1.9 than 0; 5 s nearer 2 than 9; 6 s and later nearer 9.
        #expect(chosen == [0, 1.9, 2, 2, 2, 2, 9, 9, 9, 9])
        #expect(!picker.isDone)
        chosen += picker.finish(end: 12).map(\.frame.time)
        #expect(chosen.count == 12 && chosen.last == 9 && picker.isDone)
        // A tie goes to the earlier keyframe: 1 s lies halfway between 0.5 and 1.5.
        var tie = NearestKeyframePicker(schedule: TileSchedule(interval: 1, count: 2, durationMs: 2000))
        #expect(tie.offer(frame(0.5)).map(\.tile) == [0])
        #expect(tie.offer(frame(1.5)).map(\.frame.time) == [0.5])
        #expect(tie.isDone)
        // Frames that stop early: no tiles past the end.
        var short = NearestKeyframePicker(schedule: TileSchedule(interval: 1, count: 5, durationMs: 5000))
        #expect(short.offer(frame(0)).map(\.tile) == [0])
        #expect(short.finish(end: 2.5).map(\.tile) == [1, 2])
    }

    @Test func webVTTTimestamps() {
        #expect(WebVTT.timestamp(0) == "00:00:00.000")
        #expect(WebVTT.timestamp(3_723_004) == "01:02:03.004")
        #expect(WebVTT.timestamp(360_000_000) == "100:00:00.000")
        #expect(WebVTT.text([WebVTT.Cue(startMs: 0, endMs: 6000, payload: WebVTT.thumbnail(file: "sheet_0.jpg", x: 160, y: 0, width: 160, height: 90))])
                == "WEBVTT\n\n00:00:00.000 --> 00:00:06.000\nsheet_0.jpg#xywh=160,0,160,90\n")
    }

    @Test func layout() {
        let layout = StoryboardLayout(tileWidth: 160, tileHeight: 90, columns: 10, tilesPerSheet: 25)
        #expect(layout.rowsPerSheet == 3)
        #expect(layout.position(ofTile: 0) == (0, 0, 0) && layout.position(ofTile: 24) == (0, 640, 180) && layout.position(ofTile: 25) == (1, 0, 0))
        #expect(layout.sheetSize(tiles: 25) == (1600, 270) && layout.sheetSize(tiles: 4) == (640, 90) && layout.sheetSize(tiles: 11) == (1600, 180))
        #expect(layout.sheetCount(tiles: 51) == 3)
    }

    /// Quality maps to mjpeg's quantiser scale from 2 (100) to 31 (1), and a lower quality gives
    /// a smaller file.
    @Test func stillEncoderQuality() throws {
        #expect(StillEncoder.jpegQuantizer(quality: 100) == 2 && StillEncoder.jpegQuantizer(quality: 1) == 31)
        var image = RGBAImage(width: 64, height: 48)
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            image.pixels[i] = UInt8(i % 251); image.pixels[i + 1] = UInt8(i / 7 % 256); image.pixels[i + 2] = 90; image.pixels[i + 3] = 255
        }
        for format in [StillImageFormat.jpeg, .webp] {
            let fine = try StillEncoder(format: format, quality: 95, path: "test").encode(image, path: "test")
            let coarse = try StillEncoder(format: format, quality: 10, path: "test").encode(image, path: "test")
            #expect(coarse.count < fine.count, "\(format): \(coarse.count) vs \(fine.count)")
        }
    }
}
