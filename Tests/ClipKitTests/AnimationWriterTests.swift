// AnimationWriter on real decoded frames: WebP and MP4 read back (timing, pixels, alpha, loop, fast start), determinism, failures leaving nothing.
@_weakLinked import CFFmpeg
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct AnimationWriterTests {
    /// The frames of a fixture, with the sequence's duration.
    func frames(_ name: String, _ options: FrameReadOptions = FrameReadOptions()) throws -> (frames: [VideoFrame], duration: Double) {
        let sequence = try VideoReader(url: Fixture.url("video/\(name)")).frames(options: options)
        var out: [VideoFrame] = []
        while let frame = try sequence.next() { out.append(frame) }
        return (out, try #require(sequence.duration))
    }

    @discardableResult
    func write(_ frames: [VideoFrame], duration: Double, to url: URL, _ format: AnimationFormat,
               _ options: AnimationOptions = AnimationOptions(), budget: ByteBudget? = nil) throws -> AnimationWriter {
        let writer = try AnimationWriter(destination: url, format: format, options: options, width: frames[0].image.width,
                                         height: frames[0].image.height, frameRate: 30, budget: budget)
        for frame in frames { try writer.add(frame.image, time: frame.time) }
        try writer.finish(duration: duration)
        try writer.commit()
        return writer
    }

    /// Every frame of an MP4 with its time, decoded by libavformat/libavcodec (VideoReader), and the stream's details.
    func readMP4(_ url: URL) throws -> (info: VideoInfo, frames: [VideoFrame], duration: Double) {
        let reader = try VideoReader(url: url)
        let sequence = try reader.frames()
        var out: [VideoFrame] = []
        while let frame = try sequence.next() { out.append(frame) }
        return (reader.info, out, try #require(sequence.duration))
    }

    /// Mean absolute difference of the RGB channels over the top-left `width` x `height` pixels.
    func meanError(_ a: RGBAImage, _ b: RGBAImage, width: Int? = nil, height: Int? = nil) -> Double {
        let w = width ?? min(a.width, b.width), h = height ?? min(a.height, b.height)
        var sum = 0
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * a.width + x) * 4, j = (y * b.width + x) * 4
                for c in 0..<3 { sum += abs(Int(a.pixels[i + c]) - Int(b.pixels[j + c])) }
            }
        }
        return Double(sum) / Double(w * h * 3)
    }

    func directoryIsEmpty(_ url: URL) throws -> Bool {
        try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty
    }

    // MARK: MP4

    @Test func mp4HasTheSourcesFramesTimesAndPixels() throws {
        let (source, duration) = try frames("motion.mp4")
        let url = Fixture.scratchDirectory().appendingPathComponent("motion.mp4")
        try write(source, duration: duration, to: url, .mp4)

        let boxes = try mp4TopLevelBoxes(url).map(\.type)
        let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "fast start: moov before mdat, got \(boxes)")

        let (info, decoded, decodedDuration) = try readMP4(url)
        #expect(info.codec == "h264" && info.pixelFormat == "yuv420p")
        #expect(info.codedWidth == 320 && info.codedHeight == 180)
        #expect(info.colorMatrix == "bt709" && info.colorRange == "tv")
        #expect(!info.hasAudio)
        #expect(abs((info.duration ?? 0) - duration) < 1.0 / 90000 + 1e-9)
        #expect(abs(decodedDuration - duration) < 1.0 / 90000 + 1e-9)
        try #require(decoded.count == source.count)
        var worst = 0.0
        for (out, original) in zip(decoded, source) {
            #expect(abs(out.time - original.time) < 1.0 / 90000)
            worst = max(worst, meanError(out.image, original.image))
        }
        #expect(worst < 4, "mean error per channel \(worst)")
    }

    @Test func mp4KeepsVariableFrameTimes() throws {
        // vfr.mkv: frames at 0, 0.1, 0.2, 0.5, 0.6, 1.0, 1.1, 1.2, 1.5, 1.9 s; 2.0 s long.
        let (source, duration) = try frames("vfr.mkv")
        let url = Fixture.scratchDirectory().appendingPathComponent("vfr.mp4")
        try write(source, duration: duration, to: url, .mp4)
        let (info, decoded, decodedDuration) = try readMP4(url)
        #expect(decoded.map(\.time).map { ($0 * 10).rounded() / 10 } == [0, 0.1, 0.2, 0.5, 0.6, 1.0, 1.1, 1.2, 1.5, 1.9])
        for (out, original) in zip(decoded, source) {
            #expect(abs(out.time - original.time) < 1.0 / 90000)
            #expect(meanError(out.image, original.image) < 4)
        }
        // Sample table, media header and edit list agree: the stream lasts as long as the clip.
        #expect(abs((info.duration ?? 0) - 2.0) < 1e-4)
        #expect(abs(decodedDuration - 2.0) < 1e-4)
    }

    @Test func mp4CropsAnOddSizeByOnePixel() throws {
        let (source, duration) = try frames("motion.mp4", FrameReadOptions(fps: 10, maxFrames: 6, size: .exact(width: 321, height: 181)))
        let url = Fixture.scratchDirectory().appendingPathComponent("odd.mp4")
        let writer = try write(source, duration: duration, to: url, .mp4)
        #expect(writer.width == 320 && writer.height == 180)
        let (info, decoded, _) = try readMP4(url)
        #expect(info.codedWidth == 320 && info.codedHeight == 180)
        try #require(decoded.count == source.count)
        // Cropped, not resampled: the top-left 320x180 of each source frame, closer than the
        // same frame one pixel to the side.
        for (out, original) in zip(decoded, source) {
            let cropError = meanError(out.image, original.image, width: 320, height: 180)
            let shifted = RGBAImage(width: 320, height: 180, pixels: (0..<180).flatMap { y in
                original.image.pixels[((y * 321 + 1) * 4)..<((y * 321 + 321) * 4)]
            })
            let shiftedError = meanError(out.image, shifted)
            let resampledError = meanError(out.image, try Scaler().rgba(from: original.image, width: 320, height: 180))
            #expect(cropError < 4.5 && cropError < shiftedError && cropError < resampledError,
                    "crop error \(cropError), shifted \(shiftedError), resampled \(resampledError)")
        }
    }

    // MARK: WebP

    @Test func webpHasTheSourcesFramesTimesAndPixels() throws {
        let (source, duration) = try frames("motion.mp4", FrameReadOptions(fps: 10))
        let url = Fixture.scratchDirectory().appendingPathComponent("motion.webp")
        try write(source, duration: duration, to: url, .webp)
        let webp = try DecodedWebP(url: url)
        #expect(webp.width == 320 && webp.height == 180)
        #expect(webp.loopCount == 0, "loops forever by default")
        try #require(webp.frames.count == source.count)
        #expect(webp.starts == source.map { Int(($0.time * 1000).rounded()) })
        #expect(webp.totalMilliseconds == Int((duration * 1000).rounded()))
        var worst = 0.0
        for (out, original) in zip(webp.frames, source) { worst = max(worst, meanError(out.image, original.image)) }
        #expect(worst < 5, "mean error per channel \(worst)")
    }

    @Test func webpKeepsVariableFrameTimesToTheMillisecond() throws {
        let (source, duration) = try frames("vfr.mkv")
        let url = Fixture.scratchDirectory().appendingPathComponent("vfr.webp")
        try write(source, duration: duration, to: url, .webp)
        let webp = try DecodedWebP(url: url)
        #expect(webp.frames.map(\.milliseconds) == [100, 100, 300, 100, 400, 100, 100, 300, 400, 100])
        #expect(webp.totalMilliseconds == 2000)
    }

    @Test func losslessWebPDecodesToTheInputPixels() throws {
        let (source, duration) = try frames("counter.mp4", FrameReadOptions(fps: 10))
        let url = Fixture.scratchDirectory().appendingPathComponent("lossless.webp")
        try write(source, duration: duration, to: url, .webp, AnimationOptions(lossless: true))
        let webp = try DecodedWebP(url: url)
        try #require(webp.frames.count == source.count)
        for (out, original) in zip(webp.frames, source) {
            #expect(out.image == original.image)
        }
    }

    @Test func webpKeepsAlpha() throws {
        // alpha.mov: transparent, with an opaque red box at (20, 16), 40x24, in all 10 frames.
        let (source, duration) = try frames("alpha.mov")
        let original = source[0].image
        #expect(!original.isOpaque)
        for options in [AnimationOptions(), AnimationOptions(lossless: true)] {
            let url = Fixture.scratchDirectory().appendingPathComponent("alpha.webp")
            try write(source, duration: duration, to: url, .webp, options)
            let webp = try DecodedWebP(url: url)
            let (alphaFlag, loopCount, total) = (webp.alphaFlag, webp.loopCount, webp.totalMilliseconds)
            if loopCount == nil {
                // Identical frames: libwebp may store one still image (alpha in its VP8L header).
                #expect(webp.frames.count == 1)
            } else {
                #expect(alphaFlag, "VP8X alpha flag")
                #expect(total == 1000)
            }
            for frame in webp.frames.map(\.image) {
                let corner = frame.pixel(x: 2, y: 2).a, red = frame.pixel(x: 40, y: 28)
                #expect(corner == 0 && red.a == 255)
                #expect(red.r > 240 && red.g < 15 && red.b < 15)
                let alphaDiffers = stride(from: 3, to: original.pixels.count, by: 4).filter { frame.pixels[$0] != original.pixels[$0] }.count
                #expect(alphaDiffers == 0, "alpha differs at \(alphaDiffers) pixels")
            }
        }
    }

    @Test func webpLoopCountIsWritten() throws {
        let (source, duration) = try frames("counter.mp4", FrameReadOptions(fps: 10, maxFrames: 5))
        let url = Fixture.scratchDirectory().appendingPathComponent("loop.webp")
        try write(source, duration: duration, to: url, .webp, AnimationOptions(loopCount: 3))
        #expect(try DecodedWebP(url: url).loopCount == 3)
    }

    // MARK: Determinism, failures

    @Test func sameFramesGiveTheSameBytes() throws {
        let (source, duration) = try frames("motion.mp4", FrameReadOptions(fps: 10))
        for format in AnimationFormat.allCases {
            let directory = Fixture.scratchDirectory()
            let a = directory.appendingPathComponent("a.\(format.rawValue)"), b = directory.appendingPathComponent("b.\(format.rawValue)")
            try write(source, duration: duration, to: a, format)
            try write(source, duration: duration, to: b, format)
            #expect(try Data(contentsOf: a) == Data(contentsOf: b), "\(format) differs between two writes")
        }
    }

    /// x264 gets the CPU's features up to AVX2: its AVX-512 macroblock tree reads bytes nothing
    /// wrote (`AnimationEncoder.x264Features`; FormatTests runs it with the heap filled).
    @Test func x264IsNotGivenAVX512() {
        #if arch(x86_64)
        let upToAVX2 = AV_CPU_FLAG_MMXEXT | AV_CPU_FLAG_SSE | AV_CPU_FLAG_SSE2 | AV_CPU_FLAG_SSE3 | AV_CPU_FLAG_SSSE3
            | AV_CPU_FLAG_SSE4 | AV_CPU_FLAG_SSE42 | AV_CPU_FLAG_AVX | AV_CPU_FLAG_FMA3 | AV_CPU_FLAG_BMI1 | AV_CPU_FLAG_BMI2 | AV_CPU_FLAG_AVX2
        let expected = "MMX2,SSE,SSE2,SSE3,SSSE3,SSE4.1,SSE4.2,AVX,FMA3,BMI1,BMI2,AVX2"
        #expect(AnimationEncoder.x264Features(cpuFlags: upToAVX2) == expected)
        #expect(AnimationEncoder.x264Features(cpuFlags: upToAVX2 | AV_CPU_FLAG_AVX512 | AV_CPU_FLAG_AVX512ICL) == expected)
        #expect(AnimationEncoder.x264Features(cpuFlags: av_get_cpu_flags())?.contains("AVX512") == false)
        #expect(AnimationEncoder.x264Features(cpuFlags: 0) == "0")
        #endif
    }

    @Test func aMissingEncoderIsOneClearError() throws {
        let directory = Fixture.scratchDirectory()
        for format in AnimationFormat.allCases {
            let url = directory.appendingPathComponent("out.\(format.rawValue)")
            do {
                _ = try AnimationWriter(destination: url, format: format, options: AnimationOptions(), width: 64, height: 64,
                                        frameRate: 10, limits: Limits(), budget: nil, encoderName: "clipkit_no_such_encoder")
                Issue.record("no error for a missing encoder")
            } catch let error as ClipKitError {
                guard case .encoderMissing = error else { Issue.record("wrong error \(error)"); continue }
                let text = error.description
                #expect(text.contains(format.displayName) && text.contains(format.encoderLibrary) && text.hasPrefix(url.path))
                #expect(!text.contains("\n"))
            }
        }
        #expect(try directoryIsEmpty(directory))
        // The real encoders are there (the message's "install" advice is for machines without them).
        for format in AnimationFormat.allCases {
            _ = try AnimationEncoder.findEncoder(format.encoderName, format: format, path: "x")
        }
    }

    @Test func noFramesIsAnErrorAndLeavesNothing() throws {
        let directory = Fixture.scratchDirectory()
        for format in AnimationFormat.allCases {
            let writer = try AnimationWriter(destination: directory.appendingPathComponent("empty.\(format.rawValue)"),
                                             format: format, width: 32, height: 32)
            #expect(throws: ClipKitError.noFrames(path: writer.destination.path, reason: "no frames to write")) {
                try writer.finish(duration: 1)
            }
            #expect(try directoryIsEmpty(directory))
        }
    }

    @Test func sizesTheFormatCannotHoldAreRefused() throws {
        let directory = Fixture.scratchDirectory()
        let cases: [(AnimationFormat, Int, Int)] = [(.webp, 16384, 2), (.mp4, 1, 64), (.mp4, 64, 1), (.webp, 0, 10)]
        for (format, width, height) in cases {
            #expect {
                _ = try AnimationWriter(destination: directory.appendingPathComponent("big.\(format.rawValue)"), format: format,
                                        width: width, height: height)
            } throws: { error in
                guard case .outputFailed(_, let reason) = error as? ClipKitError else { return false }
                return reason.contains(format.displayName)
            }
        }
        #expect(try directoryIsEmpty(directory))
    }

    /// Within a conversion (a budget of the input's) every failure of the writer names the input,
    /// this file first in the reason, as the conversion's other failures do: refused sizes, the
    /// byte budget, a missing encoder.
    @Test func errorsNameTheInput() throws {
        let directory = Fixture.scratchDirectory()
        let url = directory.appendingPathComponent("big.webp")
        #expect(throws: ClipKitError.outputFailed(path: "in.mp4", reason: url.path + ": WebP frames are at most 16383 pixels wide "
                                                  + "and high, got 16384x2 (--size 16383x16383 fits them)")) {
            _ = try AnimationWriter(destination: url, format: .webp, width: 16384, height: 2, budget: ByteBudget(limit: 1 << 30, input: "in.mp4"))
        }
        let (source, duration) = try frames("motion.mp4", FrameReadOptions(fps: 10, maxFrames: 5))
        let small = directory.appendingPathComponent("small.mp4")
        let writer = try AnimationWriter(destination: small, format: .mp4, width: 320, height: 180, budget: ByteBudget(limit: 2000, input: "in.mp4"))
        #expect(throws: ClipKitError.limitExceeded(path: "in.mp4", what: small.path + ": output size", limit: "2000 bytes", option: "--max-output")) {
            for frame in source { try writer.add(frame.image, time: frame.time) }
            try writer.finish(duration: duration)
        }
        #expect {
            _ = try AnimationWriter(destination: url, format: .webp, options: AnimationOptions(), width: 64, height: 64, frameRate: 10,
                                    limits: Limits(), budget: ByteBudget(limit: 1 << 30, input: "in.mp4"), encoderName: "clipkit_no_such_encoder")
        } throws: { "\($0)".hasPrefix("in.mp4: cannot write WebP: ") }
        #expect(try directoryIsEmpty(directory))
    }

    @Test func anUnfinishedOrFailedWriteLeavesNothing() throws {
        let (source, duration) = try frames("motion.mp4", FrameReadOptions(fps: 10, maxFrames: 10))
        let directory = Fixture.scratchDirectory()
        let url = directory.appendingPathComponent("clip.mp4")
        try Data("old".utf8).write(to: url)
        for format in AnimationFormat.allCases {
            // Dropped before finish, and after finish without commit.
            do {
                let writer = try AnimationWriter(destination: url, format: format, width: 320, height: 180)
                for frame in source { try writer.add(frame.image, time: frame.time) }
            }
            do {
                let writer = try AnimationWriter(destination: url, format: format, width: 320, height: 180)
                for frame in source { try writer.add(frame.image, time: frame.time) }
                try writer.finish(duration: duration)
            }
            // Over the byte budget: stopped before a byte past it is written.
            #expect {
                try write(source, duration: duration, to: url, format, budget: ByteBudget(limit: 3000))
            } throws: { error in
                guard case .limitExceeded(_, let what, _, _) = error as? ClipKitError else { return false }
                return what == "output size"
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["clip.mp4"])
        #expect(try Data(contentsOf: url) == Data("old".utf8))
    }

    @Test func framesWithinOneTickKeepTheLaterOne() throws {
        let (source, _) = try frames("counter.mp4", FrameReadOptions(maxFrames: 3))
        let url = Fixture.scratchDirectory().appendingPathComponent("tick.webp")
        let writer = try AnimationWriter(destination: url, format: .webp, options: AnimationOptions(lossless: true), width: 160, height: 120)
        try writer.add(source[0].image, time: 0)
        try writer.add(source[1].image, time: 0.5)
        try writer.add(source[2].image, time: 0.5002)  // the same millisecond: replaces the frame before
        try writer.finish(duration: 1)
        try writer.commit()
        let webp = try DecodedWebP(url: url)
        #expect(webp.frames.map(\.milliseconds) == [500, 500])
        #expect(webp.frames.map(\.image) == [source[0].image, source[2].image])
    }

    @Test func formatsFromFileNames() {
        #expect(AnimationFormat(pathExtension: "WebP") == .webp)
        #expect(AnimationFormat(pathExtension: "mp4") == .mp4)
        #expect(AnimationFormat(pathExtension: "gif") == nil)
    }
}
