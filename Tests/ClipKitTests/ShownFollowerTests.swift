// The quantiser's copy of what the viewer sees follows the writer's reports band by band.
import Foundation
import Testing
@testable import ClipKit
import TestSupport

@Suite struct ShownFollowerTests {
    /// A 4 x 4 canvas whose pixel (x, y) is RGB (value, x, y).
    static func band(rows: Range<Int>, value: UInt8) -> ShownReport {
        var pixels: [UInt8] = []
        for y in rows { for x in 0..<4 { pixels += [value, UInt8(x), UInt8(y)] } }
        return .rows(PixelRect(x: 0, y: rows.lowerBound, width: 4, height: rows.count), pixels)
    }

    /// The 4 rows of the canvas as a ditherer reads them through `follower`, each once it is
    /// ready; `afterEach` runs after each row is read.
    static func rowsRead(by follower: inout ShownFollower, afterEach: (Int) -> Void = { _ in }) -> [[UInt8]] {
        var rows: [[UInt8]] = []
        follower.following { canvas, rowReady in
            for y in 0..<4 {
                rowReady(y)
                rows.append(Array(canvas[y * 12..<(y + 1) * 12]))
                afterEach(y)
            }
        }
        return rows
    }

    @Test func rowsAreReadAsTheyArriveWhileTheWriterIsStillWriting() throws {
        let reports = BoundedQueue<ShownReport>(capacity: ShownReport.queueCapacity)
        var follower = ShownFollower(reports: reports)
        follower.expect(PixelRect(x: 0, y: 0, width: 4, height: 4), opaque: true, width: 4, height: 4)
        #expect(follower.knows(width: 4, height: 4))
        // The writer sends the top half, then waits until the first row has been read before
        // it sends the rest: a follower that waited for the whole image would never get it.
        let firstRowRead = LockedBox(false)
        let waitedInVain = LockedBox(false)
        let writer = StageThread(name: "test.writer") {
            reports.push(Self.band(rows: 0..<2, value: 7))
            let deadline = Date().addingTimeInterval(5)
            while !firstRowRead.withLock({ $0 }) {
                if Date() > deadline { waitedInVain.withLock { $0 = true }; break }
                Thread.sleep(forTimeInterval: 0.005)
            }
            reports.push(Self.band(rows: 2..<4, value: 7))
            reports.push(.done)
        }
        let seen = Self.rowsRead(by: &follower) { y in
            if y == 0 { firstRowRead.withLock { $0 = true } }
        }
        follower.catchUp()
        writer.join()
        #expect(!waitedInVain.withLock { $0 })
        for y in 0..<4 {
            #expect(seen[y] == (0..<4).flatMap { [7, UInt8($0), UInt8(y)] }, "row \(y)")
        }
        #expect(follower.canvas == (0..<4).flatMap { y in (0..<4).flatMap { [7, UInt8($0), UInt8(y)] } })
    }

    @Test func aPartialImageChangesOnlyItsRows() throws {
        let reports = BoundedQueue<ShownReport>(capacity: ShownReport.queueCapacity)
        var follower = ShownFollower(reports: reports)
        follower.expect(PixelRect(x: 0, y: 0, width: 4, height: 4), opaque: true, width: 4, height: 4)
        reports.push(Self.band(rows: 0..<4, value: 1))
        reports.push(.done)
        follower.catchUp()
        // A 2 x 1 image at (1, 2): rows outside it are final at once, its own row waits.
        follower.expect(PixelRect(x: 1, y: 2, width: 2, height: 1), opaque: true, width: 4, height: 4)
        reports.push(.rows(PixelRect(x: 1, y: 2, width: 2, height: 1), [9, 9, 9, 9, 9, 9]))
        reports.push(.done)
        let rows = Self.rowsRead(by: &follower)
        follower.catchUp()
        #expect(rows[1] == [1, 0, 1, 1, 1, 1, 1, 2, 1, 1, 3, 1])
        #expect(rows[2] == [1, 0, 2, 9, 9, 9, 9, 9, 9, 1, 3, 2])
        #expect(rows[3] == [1, 0, 3, 1, 1, 3, 1, 2, 3, 1, 3, 3])
    }

    @Test func unknownOrMisfitReportsLeaveNothingKnown() throws {
        let reports = BoundedQueue<ShownReport>(capacity: ShownReport.queueCapacity)
        var follower = ShownFollower(reports: reports)
        // A first image that does not cover the canvas: nothing is known from it.
        follower.expect(PixelRect(x: 0, y: 0, width: 2, height: 2), opaque: true, width: 4, height: 4)
        #expect(!follower.knows(width: 4, height: 4))
        reports.push(.rows(PixelRect(x: 0, y: 0, width: 2, height: 2), [UInt8](repeating: 5, count: 12)))
        reports.push(.done)
        follower.catchUp()
        #expect(follower.canvas == nil)
        // A covering image with a transparent index does not make it known (nor does the encoder follow it).
        follower.expect(PixelRect(x: 0, y: 0, width: 4, height: 4), opaque: false, width: 4, height: 4)
        #expect(!follower.knows(width: 4, height: 4))
        reports.push(.unknown)
        follower.catchUp()
        // Known from a covering image, then the writer stops following it.
        follower.expect(PixelRect(x: 0, y: 0, width: 4, height: 4), opaque: true, width: 4, height: 4)
        reports.push(Self.band(rows: 0..<4, value: 2))
        reports.push(.unknown)
        follower.catchUp()
        #expect(!follower.knows(width: 4, height: 4))
        // A band that does not fit the canvas is not copied, and leaves nothing known.
        follower.expect(PixelRect(x: 0, y: 0, width: 4, height: 4), opaque: true, width: 4, height: 4)
        reports.push(.rows(PixelRect(x: 2, y: 3, width: 4, height: 2), [UInt8](repeating: 0, count: 24)))
        reports.push(.done)
        follower.catchUp()
        #expect(!follower.knows(width: 4, height: 4))
        // A cancelled queue (the run stopping) too.
        follower.expect(PixelRect(x: 0, y: 0, width: 4, height: 4), opaque: true, width: 4, height: 4)
        reports.cancel()
        follower.catchUp()
        #expect(!follower.knows(width: 4, height: 4))
    }

    /// The writer's side: the lossy encoder reports an image's rows in at most the bands the
    /// feedback queue holds (with the last band and `done`), in order, and only rows it has
    /// finished: what they show then is what they show after the image.
    @Test(arguments: [1, 2, 7, 8, 9, 15, 16, 17, 100])
    func theEncoderReportsFinishedRowsInAtMostTheBandsTheQueueHolds(height: Int) throws {
        let width = 9
        let url = Fixture.scratchDirectory().appendingPathComponent("bands.gif")
        let encoder = try GIFEncoder(url: url, width: width, height: height, globalPalette: nil, loopCount: 0)
        encoder.lossy = 80
        // Four grey levels, two of them close, in a pseudo-random pattern: lossy strings run across rows.
        let table: [UInt8] = [0, 0, 0, 250, 250, 250, 120, 120, 120, 126, 126, 126]
        var state: UInt32 = 12345
        let indices: [UInt8] = (0..<width * height).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(state >> 16 & 3)
        }
        for image in 0..<2 {
            var reports: [(rows: Int, canvas: [UInt8])] = []
            let frame = GIFFrame(width: width, height: height, localPalette: table, indices: image == 0 ? indices : indices.reversed())
            _ = try encoder.prepare(frame, rowsPerReport: ShownReport.bandRows(height: height)) { rows, canvas in
                reports.append((rows, Array(canvas[0..<rows * width * 3])))
            }
            let after = try #require(encoder.shownCanvas)
            #expect(reports.count + 2 <= ShownReport.queueCapacity, "height \(height): \(reports.count) bands before the last")
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.rows < $1.rows })
            for report in reports {
                #expect(report.rows > 0 && report.rows < height)
                #expect(report.canvas == Array(after[0..<report.rows * width * 3]), "height \(height): rows 0..<\(report.rows) changed after they were reported")
            }
        }
    }
}
