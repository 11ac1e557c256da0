// Two animations decoded once each and compared frame pair by frame pair, aligned by timestamp: exact equality, SSIM curve, worst pair.
import Foundation

/// What `compare` found between a baseline and a current GIF (or still).
struct FrameComparison {
    /// (milliseconds, luma SSIM) per aligned pair.
    var curve: [(Int, Double)] = []
    var worstSSIM = 1.0
    var worstTimeMs = 0
    var worstPair: (RGBAImage, RGBAImage)?
    /// The distinct pictures in display order with how long each shows (runs of equal frames merged).
    var before: [(Int, Int)] = []
    var after: [(Int, Int)] = []
    var sizesDiffer = false

    var samePictures: Bool { before.map(\.0) == after.map(\.0) }
    var sameTiming: Bool { before.map(\.1) == after.map(\.1) }

    /// Walks both animations once: each step compares the two frames on screen at the same
    /// moment, then moves on whichever ends first (both when they end together).
    static func compare(_ a: URL, _ b: URL, limits: Limits) throws -> FrameComparison {
        let first = try GIFAnimation(url: a, limits: limits), second = try GIFAnimation(url: b, limits: limits)
        var result = FrameComparison()
        func next(_ animation: GIFAnimation, _ list: inout [(Int, Int)]) throws -> DisplayedFrame? {
            let frame = try animation.next()
            if let frame { append(frame, to: &list) }
            return frame
        }
        var x = try next(first, &result.before), y = try next(second, &result.after)
        var timeA = 0, timeB = 0
        while let left = x, let right = y {
            try limits.checkDeadline(b.path)
            result.pair(left.canvas, right.canvas, at: max(timeA, timeB))
            let endA = timeA + left.delay * 10, endB = timeB + right.delay * 10
            if endA <= endB { timeA = endA; x = try next(first, &result.before) }
            if endB <= endA { timeB = endB; y = try next(second, &result.after) }
        }
        // The longer one's remaining frames count for its pictures and timing.
        while x != nil { x = try next(first, &result.before) }
        while y != nil { y = try next(second, &result.after) }
        return result
    }

    /// Compares two stills (posters) as one-frame animations.
    static func compare(still a: RGBAImage, _ b: RGBAImage) -> FrameComparison {
        var result = FrameComparison()
        result.before = [(hash(a), 0)]
        result.after = [(hash(b), 0)]
        result.pair(a, b, at: 0)
        return result
    }

    private mutating func pair(_ a: RGBAImage, _ b: RGBAImage, at time: Int) {
        var ssim = 1.0
        if a.width != b.width || a.height != b.height {
            sizesDiffer = true
            ssim = 0
        } else if a.pixels != b.pixels {
            ssim = SSIM.of(LumaPlane(a), LumaPlane(b))
        }
        curve.append((time, (ssim * 10000).rounded() / 10000))
        if ssim < worstSSIM || worstPair == nil && ssim < 1 {
            worstSSIM = ssim
            worstTimeMs = time
            worstPair = (a, b)
        }
    }

    private static func append(_ frame: DisplayedFrame, to list: inout [(Int, Int)]) {
        let hash = hash(frame.canvas)
        if let last = list.last, last.0 == hash { list[list.count - 1].1 += frame.delay * 10 } else { list.append((hash, frame.delay * 10)) }
    }

    static func hash(_ image: RGBAImage) -> Int {
        var hasher = Hasher()
        hasher.combine(image.width)
        hasher.combine(image.height)
        hasher.combine(image.pixels)
        return hasher.finalize()
    }

    /// |a - b| per channel times 4, opaque: where the two frames differ.
    static func difference(_ a: RGBAImage, _ b: RGBAImage) -> RGBAImage {
        guard a.width == b.width, a.height == b.height else { return b }
        var pixels = [UInt8](repeating: 255, count: a.pixels.count)
        for index in 0..<a.pixels.count where index % 4 != 3 {
            pixels[index] = UInt8(min(abs(Int(a.pixels[index]) - Int(b.pixels[index])) * 4, 255))
        }
        return RGBAImage(width: a.width, height: a.height, pixels: pixels)
    }
}
