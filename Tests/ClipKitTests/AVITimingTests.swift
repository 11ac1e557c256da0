// AVI with B-frames: packets timed in decode order, some without a timestamp, Xvid's packed bitstream; raw pictures cut short.
@_weakLinked import CFFmpeg
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct AVITimingTests {
    static let clips = ["avi_bframes.avi", "avi_packed.avi", "avi_h264_bframes.avi"]

    func frames(_ name: String, fps: Double?) throws -> [(time: Double, sourceTime: Double, image: RGBAImage)] {
        let sequence = try VideoReader(url: Fixture.url("video/\(name)")).frames(options: FrameReadOptions(fps: fps, size: .width(64)))
        defer { sequence.cancel() }
        var out: [(time: Double, sourceTime: Double, image: RGBAImage)] = []
        while let frame = try sequence.next() { out.append((frame.time, frame.sourceTime, frame.image)) }
        return out
    }

    /// Sampling at 10 fps shows at each tick the picture a full decode shows then, and every
    /// tick has its own picture: the 25 fps clip moves in each. (Skipping B-frames by their
    /// packets' decode-order times dropped pictures that were on screen: 17 frames of 100-300 ms.)
    @Test(arguments: clips)
    func ticksShowWhatAFullDecodeShows(_ name: String) throws {
        let all = try frames(name, fps: nil)
        #expect(all.count >= 48)
        let sampled = try frames(name, fps: 10)
        #expect(sampled.count >= 20, "\(name): \(sampled.map(\.time))")
        for (k, frame) in sampled.enumerated() {
            #expect(abs(frame.time - Double(k) / 10) < 1e-6, "\(name): frame \(k) at \(frame.time)")
            let shown = all.last { $0.sourceTime <= frame.time + 1e-6 } ?? all[0]
            #expect(frame.sourceTime == shown.sourceTime && frame.image == shown.image,
                    "\(name) at \(frame.time): source \(frame.sourceTime), a full decode shows \(shown.sourceTime)")
        }
        // A full decode's pictures are 40 ms apart, as the clip's 25 fps.
        let gaps = zip(all.dropFirst(), all).map { $0.sourceTime - $1.sourceTime }
        #expect(gaps.allSatisfy { abs($0 - 0.04) < 0.002 || abs($0 - 0.08) < 0.002 }, "\(name): \(gaps)")
    }

    /// `info`'s measured rate comes from the decode times when only some packets have a
    /// presentation time (it said 16.8 and 8.3 fps).
    @Test(arguments: clips)
    func measuredRateIsTheClipsRate(_ name: String) throws {
        let timing = try StreamTiming.measure(Fixture.url("video/\(name)"))
        let rate = try #require(timing.measuredFrameRate)
        #expect(abs(rate - 25) < 1.5, "\(name): \(rate)")
    }

    /// A raw picture cut short (the last of a truncated AVI) is not decoded: FFmpeg's rawvideo
    /// decoder would fill the rest of it from uninitialised memory, and the picture (and the
    /// GIF) would depend on what the heap held. The pictures before it are the whole file's.
    @Test func aRawPictureCutShortIsNotDecoded() throws {
        func pictures(_ name: String) throws -> [(time: Double, image: RGBAImage)] {
            let sequence = try VideoReader(url: Fixture.url("video/\(name)")).frames(options: FrameReadOptions(fps: nil, size: .original))
            defer { sequence.cancel() }
            var out: [(time: Double, image: RGBAImage)] = []
            while let frame = try sequence.next() { out.append((frame.sourceTime, frame.image)) }
            return out
        }
        let whole = try pictures("palette_raw.avi"), cut = try pictures("palette_raw_cut.avi")
        #expect(whole.count == 12 && cut.count == 11, "\(whole.count) and \(cut.count) pictures")
        for (k, (a, b)) in zip(whole, cut).enumerated() {
            #expect(a.time == b.time && a.image == b.image, "picture \(k)")
        }
        // 48 x 32 palette indices (the palette rides beside them); none for other codecs.
        for (name, bytes) in [("palette_raw.avi", 48 * 32), ("counter.mp4", nil)] {
            let demuxer = try Demuxer(url: Fixture.url("video/\(name)"))
            withExtendedLifetime(demuxer) { #expect(RawPictureSize.bytes(of: demuxer.stream.pointee.codecpar.pointee) == bytes, "\(name)") }
        }
    }

    /// H.264 with B-frames in AVI (no presentation times): each picture at its place, 40 ms
    /// apart from 0, the last two included. (FFmpeg timed them two pictures late, and the last
    /// two not at all: the 10 fps ticks showed the next picture but one, a first delay of 120 ms
    /// at 25 fps, and the clip ran 80 ms over.)
    @Test func h264PicturesTakeTheDecodeTimesInTurn() throws {
        let all = try frames("avi_h264_bframes.avi", fps: nil)
        #expect(all.count == 100)
        for (k, frame) in all.enumerated() {
            #expect(abs(frame.sourceTime - Double(k) * 0.04) < 1e-6 && Self.counter(frame.image) == k,
                    "picture \(k) at \(frame.sourceTime) shows \(Self.counter(frame.image))")
        }
        let sampled = try frames("avi_h264_bframes.avi", fps: 10)
        #expect(sampled.map { Self.counter($0.image) } == (0..<40).map { $0 * 5 / 2 }, "\(sampled.map { Self.counter($0.image) })")
        let sequence = try VideoReader(url: Fixture.url("video/avi_h264_bframes.avi")).frames(options: FrameReadOptions(fps: 10, size: .width(64)))
        while try sequence.next() != nil {}
        #expect(sequence.duration.map { abs($0 - 4) < 1e-6 } == true, "ends at \(String(describing: sequence.duration))")
    }

    /// ASF, as libavformat reads it, times H.264 by decode time only, as AVI does: the pictures
    /// take the decode times in turn (FFmpeg's own ran 3 pictures late: the 10 fps ticks showed
    /// counter 0, 1, 4, 7, ...).
    @Test func asfIsTimedAsAVIIs() throws {
        let all = try frames("asf_h264_bframes.asf", fps: nil)
        #expect(all.count == 100 && all.enumerated().allSatisfy { abs($1.sourceTime - Double($0) * 0.04) < 0.002 && Self.counter($1.image) == $0 },
                "\(all.map { ($0.sourceTime, Self.counter($0.image)) }.prefix(8))")
        let sampled = try frames("asf_h264_bframes.asf", fps: 10)
        #expect(sampled.prefix(40).map { Self.counter($0.image) } == (0..<40).map { $0 * 5 / 2 }, "\(sampled.map { Self.counter($0.image) })")
    }

    /// Frames AVI dropped (empty chunks, counter 10-14) leave their gap where it was: counter 9
    /// at 0.36 s is held until counter 15 at 0.60 s. (Given the decode times in turn, counter 15
    /// came at 0.40 s and counter 16 was held 240 ms.) Raw MPEG-1/2 video, whose parser times
    /// only some packets, is timed from its first picture: tick i shows counter 2.5 i, 4.0 s.
    @Test func dropsAndRawMPEGKeepTheirPlaces() throws {
        let dropped = try frames("avi_h264_dropped.avi", fps: nil)
        let shown = dropped.map { (counter: Self.counter($0.image), time: ($0.sourceTime * 1000).rounded()) }
        #expect(shown.count == 95 && shown[9].counter == 9 && shown[9].time == 360 && shown[10].counter == 15 && shown[10].time == 600,
                "\(shown.prefix(12))")
        for name in ["mpeg1_raw.m1v", "mpeg2_raw.m2v"] {
            let sequence = try VideoReader(url: Fixture.url("video/\(name)")).frames(options: FrameReadOptions(fps: 10, size: .width(64)))
            var counters: [Int] = []
            while let frame = try sequence.next() { counters.append(Self.counter(frame.image)) }
            #expect(counters == (0..<40).map { $0 * 5 / 2 }, "\(name): \(counters)")
            #expect(sequence.duration.map { abs($0 - 4) < 1e-6 } == true, "\(name) ends at \(String(describing: sequence.duration))")
        }
        // The MPEG-1 stream's length from libavformat is a bit-rate guess of a few ms: measured instead.
        #expect(try VideoReader(url: Fixture.url("video/mpeg1_raw.m1v")).info.duration == nil)
        #expect(try StreamTiming.clipDuration(of: Fixture.url("video/mpeg1_raw.m1v"), info: VideoReader(url: Fixture.url("video/mpeg1_raw.m1v")).info,
                                              limits: Limits()).map { abs($0 - 4) < 1e-6 } == true)
    }

    /// The counter fixtures' frame number (R = 8 + 16*(n%16), G = 8 + 16*(n/16)).
    static func counter(_ image: RGBAImage) -> Int {
        let p = image.pixel(x: image.width / 2, y: image.height / 2)
        return Int(p.g) / 16 * 16 + Int(p.r) / 16
    }
}
