// VideoReader against real fixtures: metadata, timestamps, sampling by time, rotation, errors.
@_weakLinked import CFFmpeg
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct VideoReaderTests {
    func frames(_ name: String, _ options: FrameReadOptions) throws -> (frames: [VideoFrame], duration: Double?) {
        let reader = try VideoReader(url: Fixture.url("video/\(name)"))
        let sequence = try reader.frames(options: options)
        var out: [VideoFrame] = []
        while let frame = try sequence.next() { out.append(frame) }
        return (out, sequence.duration)
    }

    @Test func readsMetadata() throws {
        let counter = try VideoReader(url: Fixture.url("video/counter.mp4")).info
        #expect(counter.codec == "h264")
        #expect(counter.codedWidth == 160 && counter.codedHeight == 120)
        #expect(counter.frameRate == 30)
        #expect(abs((counter.duration ?? 0) - 4.0) < 0.01)
        #expect(counter.rotation == .identity)
        #expect(counter.hasAudio == false)

        let hevc = try VideoReader(url: Fixture.url("video/hevc10.mp4")).info
        #expect(hevc.codec == "hevc")
        #expect(hevc.bitDepth == 10)
        #expect(hevc.pixelFormat == "yuv420p10le")

        let rotated = try VideoReader(url: Fixture.url("video/rotated90.mov")).info
        #expect(rotated.rotation.degrees == 90)
        #expect(rotated.width == 240 && rotated.height == 320)

        #expect(try VideoReader(url: Fixture.url("video/vp9.webm")).info.codec == "vp9")
    }

    @Test func aDecodedPictureIsSizedByItsPixelFormat() throws {
        // 4:2:0: 1.5 bytes a pixel, twice that at 10 bits; RGB with alpha, 4; a palette, 1.
        let counter = try VideoReader(url: Fixture.url("video/counter.mp4")).info
        #expect(counter.pixelFormat == "yuv420p" && counter.decodedPictureBytes == counter.codedWidth * counter.codedHeight * 3 / 2)
        let hevc = try VideoReader(url: Fixture.url("video/hevc10.mp4")).info
        #expect(hevc.pixelFormat == "yuv420p10le" && hevc.decodedPictureBytes == hevc.codedWidth * hevc.codedHeight * 3)
        let argb = try VideoReader(url: Fixture.url("video/alpha.mov")).info
        #expect(argb.pixelFormat == "argb" && argb.decodedPictureBytes == 96 * 64 * 4)
        let palette = try VideoReader(url: Fixture.url("video/palette_raw.avi")).info
        #expect(palette.pixelFormat == "pal8" && palette.decodedPictureBytes == 48 * 32)
        let rgb = try VideoReader(url: Fixture.url("video/tall_png.mkv")).info
        #expect(rgb.pixelFormat == "rgb24" && rgb.decodedPictureBytes == 16 * 17_000 * 3)
        // Padding counts: rgb0's unused byte, as argb's alpha; no size for a hardware format.
        #expect(Demuxer.bytesPer64Pixels(av_pix_fmt_desc_get(AV_PIX_FMT_RGB0)) == 256)
        #expect(Demuxer.bytesPer64Pixels(av_pix_fmt_desc_get(AV_PIX_FMT_YUV444P10LE)) == 384)
        #expect(Demuxer.bytesPer64Pixels(av_pix_fmt_desc_get(AV_PIX_FMT_VAAPI)) == nil)
        // A header's largest sizes at 8 bytes a pixel: more than any budget, not a trap.
        var huge = VideoInfo(container: "mov", codec: "prores", codedWidth: Int(Int32.max), codedHeight: Int(Int32.max),
                             rotation: .identity, duration: nil, frameRate: nil, pixelFormat: "yuva444p12le", bitDepth: 12,
                             frameCount: nil, hasAudio: false)
        huge.decodedBytesPer64Pixels = 512
        #expect(huge.decodedPictureBytes > Limits().maxMemory)
    }

    @Test func everyFrameInOrderWithTimes() throws {
        let (frames, duration) = try frames("counter.mp4", FrameReadOptions())
        #expect(frames.count == 120)
        for (n, frame) in frames.enumerated() {
            #expect(counterFrame(frame.image.pixel(x: 80, y: 60)) == n)
            #expect(abs(frame.time - Double(n) / 30) < 1e-6)
        }
        #expect(abs((duration ?? 0) - 4.0) < 1e-6)
    }

    /// A Matroska cut (`-ss 1.3 -c copy -avoid_negative_ts disabled`): counter 0-32 decode
    /// without timestamps, then counter 33 at -0.12 s from the stream start. Counted on from 0
    /// they ran to 1.28 s and time went back (after counter 31 came 36 at 0 s: explode's -1240 ms
    /// delay); placed a frame apart before the first timed one, they are all before the start.
    @Test func untimedLeadGoesBeforeTheFirstTimedFrame() throws {
        let (all, duration) = try frames("cut_negts.mkv", FrameReadOptions())
        #expect(all.map { counterFrame($0.image.pixel(x: 32, y: 24)) } == Array(36...99))
        #expect(all.map { Int(($0.time * 1000).rounded()) } == (0..<64).map { $0 * 40 })
        #expect(abs((duration ?? 0) - 2.56) < 1e-6)
        // Tick k (at k/10 s) shows the frame a full decode has on screen then; from 1 s, counter 61.
        let (ticks, _) = try frames("cut_negts.mkv", FrameReadOptions(fps: 10))
        #expect(ticks.map { counterFrame($0.image.pixel(x: 32, y: 24)) } == (0..<26).map { 36 + 10 * $0 / 4 })
        let (one, _) = try frames("cut_negts.mkv", FrameReadOptions(start: 1, maxFrames: 1))
        #expect(one.map { counterFrame($0.image.pixel(x: 32, y: 24)) } == [61])
        // Before the only keyframe the cues list (counter 50 at 0.56 s), where a seek to the
        // beginning lands: the file is opened again and decoded from its first picture.
        let (early, _) = try frames("cut_negts.mkv", FrameReadOptions(start: 0.5, maxFrames: 1))
        #expect(early.map { counterFrame($0.image.pixel(x: 32, y: 24)) } == [48])
    }

    /// An edit list of two segments (media 0-1 s, then 2-3 s): libavformat shows counter 0-24 at
    /// 0-0.96 s and 50-74 from 1.04 s, and reads the left-out frames between as references
    /// flagged discard. Counter 25's time (1.00 s) ended counter 24's, which was skipped as no
    /// tick's, and the 1.0 s tick showed counter 23, on screen then under no reading.
    @Test func aLeftOutFrameEndsNoFrameAtAnEditListJoin() throws {
        for fps in [10.0, 20.0] {
            let (ticks, _) = try frames("two_edits.mp4", FrameReadOptions(fps: fps))
            let expected = (0..<Int(2 * fps)).map { k -> Int in
                let t = Double(k) / fps
                return t < 1.04 - 1e-9 ? min(Int((t * 25).rounded(.down)), 24) : 50 + Int(((t - 1.04) * 25 + 1e-9).rounded(.down))
            }
            #expect(Array(ticks.map { counterFrame($0.image.pixel(x: 32, y: 24)) }.prefix(expected.count)) == expected, "\(fps) fps")
        }
    }

    /// H.264 in an MPEG-PS with a timestamp on few PES: untimed frames continue from the last by
    /// their own duration (40 ms). By the step before them, 0.2 s from the frame before the first
    /// timestamp, 65 frames ran 9.68 s.
    @Test func untimedFramesContinueByTheirOwnDuration() throws {
        let (all, duration) = try frames("ps_sparse.mpg", FrameReadOptions())
        #expect(all.count >= 70)
        // In order, 40 ms apart but around the timestamp libavformat misplaces (two gaps).
        let gaps = zip(all.dropFirst(), all).map { $0.time - $1.time }
        #expect(gaps.allSatisfy { $0 > 0 } && gaps.filter { $0 > 0.05 }.count <= 2, "\(all.map(\.time))")
        #expect(abs((duration ?? 0) - 3.0) < 0.05, "\(duration ?? 0)")
        // The length said before decoding is the frames' too (libavformat's, from the few
        // misplaced times, was 3.92 s; measured by the gap before the last time, 4.76 s).
        let url = Fixture.url("video/ps_sparse.mpg")
        #expect(try VideoReader(url: url).info.duration == 3.0)
        let timing = try StreamTiming.measure(url)
        #expect(timing.duration(header: nil) == 3.0 && timing.measuredFrameRate == 25 && !timing.isVariableFrameRate)
    }

    @Test func sampledByTimestampNotIndex() throws {
        // 30 fps read at 10 fps: tick k shows source frame 3k.
        let (frames, duration) = try frames("counter.mp4", FrameReadOptions(fps: 10))
        #expect(frames.count == 40)
        for (k, frame) in frames.enumerated() {
            #expect(frame.index == k)
            #expect(counterFrame(frame.image.pixel(x: 10, y: 10)) == 3 * k)
        }
        #expect(abs((duration ?? 0) - 4.0) < 1e-6)
        // 7 fps does not divide 30: tick k is at k/7 s, the frame on screen then is floor(30k/7).
        let (seven, _) = try self.frames("counter.mp4", FrameReadOptions(fps: 7))
        #expect(seven.count == 28)
        for (k, frame) in seven.enumerated() {
            #expect(counterFrame(frame.image.pixel(x: 10, y: 10)) == (30 * k) / 7)
        }
    }

    /// Frames arrive in output time: at speed 2 and 10 fps, tick k (at k/10 s of output) shows the
    /// source frame on screen at 2k/10 s, and the stream lasts half the source's length.
    @Test func speedGivesFramesInOutputTime() throws {
        var options = FrameReadOptions(fps: 10)
        options.speed = 2
        let (frames, duration) = try frames("counter.mp4", options)
        #expect(frames.count == 20)
        for (k, frame) in frames.enumerated() {
            #expect(abs(frame.time - Double(k) / 10) < 1e-9)
            #expect(abs(frame.sourceTime - Double(k) / 5) < 1e-6)
            #expect(counterFrame(frame.image.pixel(x: 10, y: 10)) == 6 * k)
        }
        #expect(abs((duration ?? 0) - 2.0) < 1e-6)
        options.speed = 0
        #expect(throws: ClipKitError.self) { try self.frames("counter.mp4", options) }
    }

    /// Every timing bound is stated once (`TimingBounds`) and checked where options are validated.
    @Test func timingBoundsAreCheckedAtTheDoor() throws {
        var gif = GIFOptions()
        gif.fps = TimingBounds.maxGIFFPS
        try gif.validate()
        gif.fps = TimingBounds.maxGIFFPS + 1
        #expect(throws: ClipKitError.self) { try gif.validate() }
        #expect(throws: Never.self) { try ExplodeOptions(fps: TimingBounds.maxExplodeFPS).validate() }
        #expect(throws: ClipKitError.self) { try ExplodeOptions(fps: TimingBounds.maxExplodeFPS * 2).validate() }
        #expect(throws: ClipKitError.self) { try TimingBounds.checkDelays([2, 1], in: TimingBounds.givenDelay, name: "--delay") }
        try TimingBounds.checkDelays([0, 36_000_000], in: TimingBounds.frameDelay, name: "delay_cs")
    }

    /// Each tick shows the frame a full decode has on screen then, B-frames included. The
    /// frames no tick can show are not decoded, and that was judged by each packet's own
    /// duration, which Matroska rounds to the millisecond: a 24 fps frame lasted 41 ms where
    /// frames are 41 and 42 ms apart, and a tick in the last millisecond got the frame before
    /// (at 12 fps, 16 of vfr_tick.mkv's 61 ticks; on a 29.97 fps clip, the tick at 0.5 s).
    @Test(arguments: ["vfr_tick.mkv", "vfr_nodur.mkv"], [10.0, 12.0, 7.0])
    func ticksShowTheFrameOnScreenThen(_ name: String, _ fps: Double) throws {
        let (all, _) = try frames(name, FrameReadOptions())
        let (ticks, _) = try frames(name, FrameReadOptions(fps: fps))
        #expect(ticks.count >= 30)
        for tick in ticks {
            let shown = try #require(all.last { $0.sourceTime <= tick.time + 1e-6 })
            #expect(tick.sourceTime == shown.sourceTime && tick.image == shown.image,
                    "tick at \(tick.time) s shows the frame at \(tick.sourceTime) s, not \(shown.sourceTime) s")
        }
    }

    @Test func variableFrameRateKeepsRealTiming() throws {
        let pts = [0, 0.1, 0.2, 0.5, 0.6, 1.0, 1.1, 1.2, 1.5, 1.9]
        let (frames, duration) = try frames("vfr.mkv", FrameReadOptions(fps: 10))
        #expect(frames.count == 20)
        #expect(abs((duration ?? 0) - 2.0) < 1e-6)
        for (k, frame) in frames.enumerated() {
            let tick = Double(k) / 10
            let expected = pts.lastIndex(where: { $0 <= tick + 1e-9 })!
            #expect(counterFrame(frame.image.pixel(x: 10, y: 10)) == expected, "tick \(tick)")
        }
    }

    @Test func startTimeOffsetIsZero() throws {
        let (frames, duration) = try frames("offset.mp4", FrameReadOptions())
        #expect(frames.count == 60)
        #expect(frames[0].time == 0)
        #expect(counterFrame(frames[0].image.pixel(x: 5, y: 5)) == 0)
        #expect(abs((duration ?? 0) - 2.0) < 1e-6)
    }

    @Test func rangeAndSeekAreFrameAccurate() throws {
        // 1.55 s is inside source frame 46 (1.5333...1.5667), past the keyframe at 1.0 s.
        let (frames, _) = try frames("counter.mp4", FrameReadOptions(start: 1.55, end: 2.0))
        #expect(counterFrame(frames[0].image.pixel(x: 5, y: 5)) == 46)
        #expect(frames.count == 14)  // 46...59
        #expect(counterFrame(frames.last!.image.pixel(x: 5, y: 5)) == 59)
    }

    @Test func maxFramesAndKeyframes() throws {
        let (three, _) = try frames("counter.mp4", FrameReadOptions(maxFrames: 3))
        #expect(three.map { counterFrame($0.image.pixel(x: 1, y: 1)) } == [0, 1, 2])
        let (keys, _) = try frames("counter.mp4", FrameReadOptions(keyframesOnly: true))
        #expect(keys.map { counterFrame($0.image.pixel(x: 1, y: 1)) } == [0, 30, 60, 90])
    }

    @Test func scalesKeepingAspect() throws {
        let (frames, _) = try frames("motion.mp4", FrameReadOptions(maxFrames: 1, size: .width(100)))
        #expect(frames[0].image.width == 100 && frames[0].image.height == 56)
        let (big, _) = try self.frames("motion.mp4", FrameReadOptions(maxFrames: 1, size: .width(1000)))
        #expect(big[0].image.width == 320, "never upscales")
    }

    @Test func tenBitAndVP9Decode() throws {
        for name in ["hevc10.mp4", "vp9.webm"] {
            let (frames, _) = try frames(name, FrameReadOptions())
            #expect(frames.count == 25, "\(name)")
            #expect(frames[0].image.width == 160)
        }
    }

    @Test func badInputsAreTypedErrors() throws {
        #expect(throws: ClipKitError.noVideoStream(path: Fixture.url("video/audio_only.m4a").path)) {
            try VideoReader(url: Fixture.url("video/audio_only.m4a"))
        }
        #expect(throws: ClipKitError.fileNotFound(path: "/nonexistent/clip.mp4")) {
            try VideoReader(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        }
        #expect(throws: ClipKitError.isDirectory(path: Fixture.url("video").path)) {
            try VideoReader(url: Fixture.url("video"))
        }
        do {
            _ = try VideoReader(url: Fixture.url("video/not_video.mp4"))
            Issue.record("not_video.mp4 opened")
        } catch let error as ClipKitError {
            guard case .notMedia = error else { Issue.record("not_video.mp4: \(error)"); return }
        }
        // An MP4 cut before its index (written last) is a damaged video, and said so.
        let truncated = Fixture.url("video/truncated.mp4").path
        #expect(throws: ClipKitError.corrupt(path: truncated, reason: MP4Index.missingReason)) {
            try VideoReader(url: Fixture.url("video/truncated.mp4"))
        }
        // A truncated file with its index up front decodes what is there.
        let (frames, _) = try frames("truncated_faststart.mp4", FrameReadOptions())
        #expect(frames.count > 10 && frames.count < 50)
    }

    @Test func startPastEndNamesTheDuration() throws {
        let reader = try VideoReader(url: Fixture.url("video/counter.mp4"))
        #expect(throws: ClipKitError.startPastEnd(path: Fixture.url("video/counter.mp4").path, start: 9, duration: 4)) {
            _ = try reader.frames(options: FrameReadOptions(start: 9))
        }
    }
}
