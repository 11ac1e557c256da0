// Checks GIFDecoder on the conformance suite and on the hand-made fixtures, damaged ones included.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct GIFDecoderTests {
    static let suiteNames = [
        "animated_loop", "animated_loop_interlaced", "animated_loop_variable_delay", "animated_noloop",
        "animated_transparent_firstframerestoreprev_loop", "animated_transparent_frame_norestore_loop",
        "animated_transparent_frame_restorebackground_loop", "animated_transparent_frame_restoreprev_loop",
        "animated_transparent_loop", "animated_transparent_loop_frames_out_of_bounds",
        "animated_transparent_restoreprev_loop", "static_nontransparent", "static_transparent",
    ]

    static func images(_ decoder: GIFDecoder) throws -> [GIFFrame] {
        var frames: [GIFFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        return frames
    }

    @Test(arguments: suiteNames)
    func conformanceFileDecodesCleanly(_ name: String) throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif-test-suite/gifs/\(name).gif"))
        let frames = try Self.images(decoder)
        #expect(frames.count == (name.hasPrefix("static") ? 1 : 4))
        #expect(decoder.warnings.isEmpty)
        #expect(decoder.loopCount == (name.contains("noloop") || name.hasPrefix("static") ? nil : 0))
        for frame in frames {
            #expect(frame.indices.count == frame.width * frame.height)
        }
    }

    @Test func readsTheLogicalScreenAndControlBlocks() throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif-test-suite/gifs/animated_transparent_loop_frames_out_of_bounds.gif"))
        #expect(decoder.canvasWidth == 100 && decoder.canvasHeight == 100)
        let frames = try Self.images(decoder)
        // The first image lies wholly outside the canvas; the reference frames clip it away.
        #expect(frames[0].left == 200 && frames[0].width == 100)
        #expect(frames.map(\.delay) == [100, 100, 100, 100])
        #expect(frames.map(\.disposal) == [.none, .background, .background, .background])
        #expect(frames[3].left == 60 && frames[3].width == 50)
    }

    @Test(arguments: [("loop_absent.gif", nil), ("loop_zero.gif", 0), ("loop_five.gif", 5), ("loop_animexts.gif", 3)] as [(String, Int?)])
    func loopCountIsReadAsStored(_ file: String, _ expected: Int?) throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif/\(file)"))
        _ = try Self.images(decoder)
        #expect(decoder.loopCount == expected)
    }

    @Test func quickPassReadsDelaysWithoutPixels() throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif/tiling.gif"))
        #expect(try decoder.remainingDelays() == [0, 0, 7, 0, 12, 0])
        #expect(decoder.imageCount == 6)
    }

    @Test func interlacedRowsComeOutInDisplayOrder() throws {
        #expect(GIFDecoder.interlacedRowOrder(height: 13) == [0, 8, 4, 12, 2, 6, 10, 1, 3, 5, 7, 9, 11])
        var rows: [UInt8] = GIFDecoder.interlacedRowOrder(height: 13).flatMap { [UInt8($0), UInt8($0)] }
        GIFDecoder.deinterlace(&rows, width: 2, height: 13)
        #expect(rows == (0..<13).flatMap { [UInt8($0), UInt8($0)] })
    }

    @Test func fullCodeTableWithAndWithoutClearDecodesTheSamePixels() throws {
        let cleared = try Self.images(GIFDecoder(url: Fixture.url("gif/lzw_full_table.gif")))
        let deferred = try Self.images(GIFDecoder(url: Fixture.url("gif/lzw_deferred_clear.gif")))
        #expect(cleared.count == 1 && deferred.count == 1)
        #expect(cleared[0].indices == deferred[0].indices)
        #expect(Set(cleared[0].indices).count > 200)
    }

    @Test func truncatedImageKeepsTheDecodedPixelsAndWarns() throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif/truncated.gif"))
        _ = try #require(try decoder.next())
        #expect(decoder.decodedPixelCount == 48)
        let cut = try #require(try decoder.next())
        #expect(cut.width * cut.height == 48)
        #expect(decoder.decodedPixelCount == 29)
        #expect(try decoder.next() == nil)
        #expect(decoder.warnings.count == 1)
        #expect(decoder.warnings.first?.contains("29 of 48") == true)
    }

    @Test(arguments: ["no_trailer.gif", "no_end_code.gif", "extra_data.gif", "bad_lzw_later.gif", "truncated_interlaced.gif"])
    func damagedFilesDecodeWithWarnings(_ file: String) throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif/\(file)"))
        let frames = try Self.images(decoder)
        #expect(frames.count == 2)
        #expect(!decoder.warnings.isEmpty)
    }

    @Test func paddingAfterTheEndCodeIsNoDamage() throws {
        // extra_data.gif: 4 bytes after image 0's end code (padding, as FFmpeg's encoder flushes
        // one: every GIF it wrote drew a warning per image), codes past image 1's pixels.
        let decoder = try GIFDecoder(url: Fixture.url("gif/extra_data.gif"))
        _ = try Self.images(decoder)
        #expect(decoder.warnings.count == 1 && decoder.warnings[0].contains("image 1 has more LZW data than its 4 pixels"),
                "\(decoder.warnings)")
    }

    @Test func invalidFirstCodeIsCorrupt() throws {
        let decoder = try GIFDecoder(url: Fixture.url("gif/bad_lzw_first.gif"))
        #expect(throws: ClipKitError.corrupt(path: Fixture.url("gif/bad_lzw_first.gif").path,
                                             reason: "image 0 has invalid LZW data from its first code")) {
            _ = try decoder.next()
        }
    }

    @Test func refusesBadHeadersBeforeAllocating() throws {
        #expect(throws: ClipKitError.corrupt(path: Fixture.url("gif/zero_width.gif").path, reason: "GIF canvas is 0x10 pixels")) {
            _ = try GIFDecoder(url: Fixture.url("gif/zero_width.gif"))
        }
        do {
            _ = try GIFDecoder(url: Fixture.url("gif/huge_canvas.gif"))
            Issue.record("a 60000x60000 canvas was accepted")
        } catch let error as ClipKitError {
            guard case .limitExceeded(_, let what, _, let option) = error else { throw error }
            #expect(what.contains("60000x60000") && option == "--max-pixels")
        }
        #expect(throws: ClipKitError.self) { _ = try GIFDecoder(url: Fixture.url("gif/disposal_none.gif"), maxPixels: 47) }
        #expect(throws: ClipKitError.notMedia(path: Fixture.url("gif/not_a_gif.gif").path, reason: "no GIF87a/GIF89a signature")) {
            _ = try GIFDecoder(url: Fixture.url("gif/not_a_gif.gif"))
        }
        #expect(throws: ClipKitError.fileNotFound(path: Fixture.url("gif/missing.gif").path)) {
            _ = try GIFDecoder(url: Fixture.url("gif/missing.gif"))
        }
    }
}
