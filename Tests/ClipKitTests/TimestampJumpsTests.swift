// MPEG-TS/PS timestamps made continuous where they jump, as ffmpeg makes them.
@_weakLinked import CFFmpeg
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct TimestampJumpsTests {
    /// Runs packets (pts, dts, duration) in a 90 kHz time base through the corrector; their times after.
    func corrected(_ packets: [(pts: Int64, dts: Int64)], duration: Int64 = 3600) throws -> [(pts: Int64, dts: Int64)] {
        try FFmpegLibraries.load()
        var jumps = TimestampJumps(timeBase: 1.0 / 90000, frameRate: 25)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        let p = try #require(packet)
        return packets.map { times in
            p.pointee.pts = times.pts
            p.pointee.dts = times.dts
            p.pointee.duration = duration
            jumps.correct(p)
            return (p.pointee.pts, p.pointee.dts)
        }
    }

    /// A part of three frames joined to itself a few times: each copy steps back only 0.04 s
    /// from the last decode time, but 0.12 s from where the last frame ends (the threshold is
    /// 0.1 s from there, as ffmpeg's): one continuous run (they overlapped, 0.12 s in all for 3 s).
    @Test func aShortPartJoinedToItselfFollowsOn() throws {
        let part: [(pts: Int64, dts: Int64)] = [(126000, 126000), (129600, 129600), (133200, 133200)]
        let out = try corrected(Array(repeating: part, count: 4).flatMap { $0 })
        let expected: [Int64] = (0..<12).map { 126000 + Int64($0) * 3600 }
        #expect(out.map(\.dts) == expected, "\(out.map(\.dts))")
        #expect(out.map(\.pts) == out.map(\.dts))
    }

    /// Ahead by more than 10 s: follows on; ahead by less: a gap in the clip, as ffmpeg keeps it.
    @Test func aLargeJumpAheadFollowsOnASmallOneStays() throws {
        let far: Int64 = 90000 * 1000, second: Int64 = 90000
        let input: [(pts: Int64, dts: Int64)] = [(0, 0), (3600, 3600), (far, far), (far + 3600, far + 3600), (far + 5 * second, far + 5 * second)]
        let expected: [Int64] = [0, 3600, 7200, 10800, 10800 + 5 * second - 3600]
        let out = try corrected(input)
        #expect(out.map(\.dts) == expected, "\(out.map(\.dts))")
    }

    /// A presentation time 95,000 s away from its decode time (a wrapped time the demuxer did not
    /// estimate a decode time for) is taken as the decode time: the clip stayed 182 s, not 95,438.
    @Test func aPresentationTimeFarFromItsDecodeTimeIsNotKept() throws {
        let input: [(pts: Int64, dts: Int64)] = [(133200, 126000), (147600, 129600), (8_589_621_392, 133200), (140400, 136800)]
        let expected: [Int64] = [133200, 147600, 133200, 140400]
        let out = try corrected(input)
        #expect(out.map(\.pts) == expected, "\(out.map(\.pts))")
    }
}
