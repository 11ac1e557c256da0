// Damage a decoder logs is noted for its own context (and its frame threads), deterministically.
@_weakLinked import CFFmpeg
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct DecoderDamageLogTests {
    /// Errors, and the error concealment's report (information), count for the context that
    /// logged them and no other; warnings, other information and contexts without a token do not.
    @Test func notesErrorsAndConcealmentOfItsOwnContext() throws {
        try FFmpegLibraries.load()
        let decoder = try #require(avcodec_find_decoder(AV_CODEC_ID_H264))
        let watched = try CodecContext(codec: decoder, path: "watched"), other = try CodecContext(codec: decoder, path: "other")
        let unwatched = try CodecContext(codec: decoder, path: "unwatched")
        watched.reportsDamage()
        other.reportsDamage()
        func log(_ context: CodecContext, _ level: Int32, _ text: String) {
            withVaList([]) { av_vlog(UnsafeMutableRawPointer(context.pointer), level, text, $0) }
        }
        log(watched, AV_LOG_WARNING, "a warning\n")
        log(watched, AV_LOG_INFO, "Reinit context\n")
        log(unwatched, AV_LOG_ERROR, "error while decoding MB 2 18\n")
        #expect(!watched.takeLoggedDamage() && !other.takeLoggedDamage() && !unwatched.takeLoggedDamage())
        log(watched, AV_LOG_ERROR, "error while decoding MB 2 18\n")
        #expect(watched.takeLoggedDamage() && !other.takeLoggedDamage())
        #expect(!watched.takeLoggedDamage(), "taken once")
        log(other, AV_LOG_INFO, "concealing 215 DC, 215 AC, 215 MV errors in I frame\n")
        #expect(other.takeLoggedDamage() && !watched.takeLoggedDamage())
    }

    /// On frame threads the damaged stream is given up every time (the flag on its pictures
    /// raced the concealment: some runs were given up, some not, and wrote different GIFs);
    /// undamaged clips never are.
    @Test func aThreadedDecodeIsGivenUpForDamageEveryTimeAndOnlyForDamage() throws {
        func givenUp(_ url: URL) throws -> Bool {
            var read = FrameReadOptions(fps: 10, size: .width(160))
            read.threadCount = 2
            read.limits.decoderThreads = .perCoreUntilDamage
            do {
                let frames = try VideoReader(url: url).frames(options: read)
                while try frames.next() != nil {}
                return false
            } catch is ThreadedDecodeDamage {
                return true
            }
        }
        let damaged = Fixture.url("hostile/h264_flipped_64.h264")
        for run in 0..<8 { #expect(try givenUp(damaged), "run \(run)") }
        for name in ["counter.mp4", "motion.mp4", "seek_opengop.mp4", "hevc10.mp4", "vp9.webm", "avi_h264_bframes.avi", "ts_joined.ts"] {
            #expect(try !givenUp(Fixture.url("video/\(name)")), "\(name)")
        }
    }
}
