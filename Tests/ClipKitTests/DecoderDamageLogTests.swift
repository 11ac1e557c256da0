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

    /// A context that clears new pictures hands the decoder zeroed buffers, also when its pool
    /// gives back one that held a picture before (a decoder that leaves part of a damaged picture
    /// unwritten showed what the buffer held: HEVC with slices missing, different every run).
    @Test func newPicturesStartZeroedWhenAskedFor() throws {
        try FFmpegLibraries.load()
        let decoder = try #require(avcodec_find_decoder(AV_CODEC_ID_H264))
        func reusedBytes(clearing: Bool) throws -> Set<UInt8> {
            let context = try CodecContext(codec: decoder, path: "pool")
            context.pointer.pointee.width = 64
            context.pointer.pointee.height = 48
            context.pointer.pointee.thread_count = 1
            if clearing { context.clearsNewPictures() }
            #expect(avcodec_open2(context.pointer, decoder, nil) >= 0)
            // The pool sizes its buffers by the context's pixel format, as a decoder sets it.
            context.pointer.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            var frame = av_frame_alloc()
            defer { av_frame_free(&frame) }
            let picture = try #require(frame)
            var seen = Set<UInt8>()
            for round in 0..<2 {
                picture.pointee.width = 64
                picture.pointee.height = 48
                picture.pointee.format = AV_PIX_FMT_YUV420P.rawValue
                #expect(context.pointer.pointee.get_buffer2(context.pointer, picture, 0) >= 0)
                let plane = try #require(picture.pointee.data.0)
                if round == 0 {
                    plane.update(repeating: 0xAB, count: Int(picture.pointee.linesize.0) * 48)
                } else {
                    seen = Set(UnsafeBufferPointer(start: plane, count: Int(picture.pointee.linesize.0) * 48))
                }
                av_frame_unref(picture)
            }
            return seen
        }
        #expect(try reusedBytes(clearing: true) == [0])
        #expect(try reusedBytes(clearing: false).contains(0xAB), "the pool gives the same buffer back (else this test shows nothing)")
    }
}
