// Real-world media classes as players show them: anamorphic pixels, alpha, transparent GIFs, scaled display matrices, open-ended durations.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct RealWorldMediaTests {
    func alphaCount(_ image: RGBAImage) -> Int {
        stride(from: 3, to: image.pixels.count, by: 4).filter { image.pixels[$0] == 0 }.count
    }

    /// 120x120 stored with 16:9 pixels is shown 213x120 (players and ffmpeg's `scale=iw*sar:ih`).
    @Test func anamorphicClipsComeOutAtTheirDisplayAspect() throws {
        let url = Fixture.url("video/anamorphic.mp4")
        let reader = try VideoReader(url: url)
        #expect(reader.info.sampleAspectRatio == (16, 9))
        #expect((reader.info.width, reader.info.height) == (213, 120))
        let thumb = try Thumbnailer().thumbnail(of: url)
        #expect((thumb.width, thumb.height) == (213, 120))
        let out = Fixture.scratchDirectory().appendingPathComponent("a.gif")
        let gif = try GIFConverter().convert(video: url, to: out)
        #expect((gif.width, gif.height) == (213, 120))
        // Without headers' help (no full probe) the container's pasp box still gives the shape.
        let quick = try VideoReader(url: url, maxPixels: 1 << 24, fullProbe: false)
        #expect(quick.info.width == 213)
    }

    /// The same pixels given by the H.264 VUI only (no `pasp`, as DVCPRO HD, HDV and retagged
    /// MOV/MP4 have them): a thumbnail, a poster, a storyboard tile and a GIF are 16:9 as ffmpeg
    /// shows it (the unprobed thumbnail and storyboard were 120x120 and 160x160).
    @Test func aspectRatioOnlyInTheBitstreamIsKept() throws {
        let url = Fixture.url("video/vui_aspect.mp4")
        let thumb = try Thumbnailer().thumbnail(of: url)
        #expect((thumb.width, thumb.height) == (213, 120))
        let late = try Thumbnailer(options: ThumbnailOptions(position: .seconds(0.5))).thumbnail(of: url)
        #expect((late.width, late.height) == (213, 120))
        var best = ThumbnailOptions()
        best.pick = .best
        let poster = try Thumbnailer(options: best).thumbnail(of: url)
        #expect((poster.width, poster.height) == (213, 120))
        let out = Fixture.scratchDirectory().appendingPathComponent("a.gif")
        let gif = try GIFConverter().convert(video: url, to: out)
        #expect((gif.width, gif.height) == (213, 120))
        let board = try Storyboarder().makeStoryboard(of: url, in: Fixture.scratchDirectory().appendingPathComponent("sb"))
        #expect(board.manifest.tile.width == 160 && board.manifest.tile.height == 90)
        // The first picture gives it at open when asked; the header alone does not.
        #expect(try VideoReader(url: url, limits: Limits(), fullProbe: false, defaultOptions: nil, geometryAtOpen: true).info.width == 213)
    }

    /// An SPS that crops a picture the MP4's sample description gives uncropped (64x64 over
    /// 64x48, as a camera's 1920x1088 over 1080 lines): thumbnails and tiles are the picture's
    /// size, not the picture stretched to the header's (64x64 before, blue rows drawn taller).
    @Test func theDecodedPictureSizeOverridesTheSampleDescription() throws {
        let url = Fixture.url("video/sps_crop.mp4")
        for options in [ThumbnailOptions(size: .original), ThumbnailOptions(position: .seconds(0.5), size: .original)] {
            let thumb = try Thumbnailer(options: options).thumbnail(of: url)
            #expect((thumb.width, thumb.height) == (64, 48))
            #expect(thumb.pixel(x: 10, y: 10).r > 200 && thumb.pixel(x: 10, y: 44).b > 200 && thumb.pixel(x: 10, y: 30).b < 50)
        }
        let board = try Storyboarder().makeStoryboard(of: url, in: Fixture.scratchDirectory().appendingPathComponent("sb"))
        #expect(board.manifest.tile.width * 3 == board.manifest.tile.height * 4, "\(board.manifest.tile)")
        #expect(try VideoReader(url: url).info.codedHeight == 48)
    }

    /// The first GIF frame (canvas), the thumbnail and the GIF's poster of a video with alpha,
    /// at its own size.
    func alphaOutputs(_ name: String) throws -> (gif: RGBAImage, thumbnail: RGBAImage, poster: RGBAImage) {
        let url = Fixture.url("video/\(name)")
        #expect(try VideoReader(url: url).info.hasAlpha)
        let dir = Fixture.scratchDirectory()
        var options = GIFOptions()
        options.size = .original
        _ = try GIFConverter(options: options).convert(video: url, to: dir.appendingPathComponent("a.gif"),
                                                       poster: dir.appendingPathComponent("p.png"))
        let frame = try #require(try GIFAnimation(url: dir.appendingPathComponent("a.gif")).next())
        let thumbURL = dir.appendingPathComponent("t.png")
        _ = try Thumbnailer(options: ThumbnailOptions(size: .original)).writeThumbnail(of: url, to: thumbURL)
        return (frame.canvas, try PNGReader.read(thumbURL), try PNGReader.read(dir.appendingPathComponent("p.png")))
    }

    /// Video with alpha keeps it: transparent where the source is, the red box opaque.
    @Test func videoAlphaSurvivesGIFAndThumbnail() throws {
        let outputs = try alphaOutputs("alpha.mov")
        #expect(alphaCount(outputs.gif) == 96 * 64 - 40 * 24)
        #expect(outputs.gif.pixel(x: 30, y: 20) == (255, 0, 0, 255))
        for (label, image) in [("thumbnail", outputs.thumbnail), ("poster", outputs.poster)] {
            #expect(alphaCount(image) == 96 * 64 - 40 * 24, "\(label)")
            #expect(image.pixel(x: 2, y: 2).a == 0 && image.pixel(x: 30, y: 20) == (255, 0, 0, 255))
        }
    }

    /// VP9 with alpha in WebM (alpha_mode 1: the alpha lies beside the picture, which FFmpeg's
    /// own decoder drops): the GIF and the thumbnail are transparent on the right half, opaque
    /// on the left (they were opaque, the YUV under the alpha showing).
    @Test func webMAlphaSurvivesGIFAndThumbnail() throws {
        let outputs = try alphaOutputs("vp9_alpha.webm")
        for image in [outputs.gif, outputs.thumbnail] {
            #expect(image.width == 32 && image.height == 24)
            // Away from the edge, where chroma and alpha subsampling blend the halves.
            for y in [2, 12, 21] {
                #expect(image.pixel(x: 4, y: y).a == 255 && image.pixel(x: 11, y: y).a == 255)
                #expect(image.pixel(x: 20, y: y).a == 0 && image.pixel(x: 28, y: y).a == 0)
            }
        }
    }

    /// A GIF whose first image does not cover the canvas, with a transparent index: gif (GIF to
    /// GIF) and thumb keep exactly the pixels explode shows as transparent.
    @Test func gifTransparencySurvivesGIFToGIF() throws {
        let url = Fixture.url("hostile/gif_partial_transparent_first.gif")
        let source = try GIFAnimation(url: url)
        var expected: [RGBAImage] = []
        while let frame = try source.next() { expected.append(frame.canvas) }
        let out = Fixture.scratchDirectory().appendingPathComponent("t.gif")
        var options = GIFOptions()
        options.size = .original
        options.fps = 50
        _ = try GIFConverter(options: options).convert(video: url, to: out)
        let written = try GIFAnimation(url: out)
        var shown: [RGBAImage] = []
        while let frame = try written.next() { shown.append(frame.canvas) }
        #expect(alphaCount(shown[0]) == alphaCount(expected[0]) && alphaCount(expected[0]) > 0)
        let sourceAlpha = { (image: RGBAImage) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] } }
        #expect(sourceAlpha(shown[0]) == sourceAlpha(expected[0]))
        #expect(sourceAlpha(shown.last!) == sourceAlpha(expected.last!))
        let thumb = try Thumbnailer(options: ThumbnailOptions(size: .original)).thumbnail(of: url)
        #expect(sourceAlpha(thumb) == sourceAlpha(expected[0]))
    }

    /// A 90-degree track matrix with a movie matrix that scales x by 2: the rotation is kept
    /// (libavformat turns the scale into a 2:1 sample aspect ratio).
    @Test func scaledDisplayMatrixKeepsTheRotation() throws {
        let plain = try VideoReader(url: Fixture.url("video/rotated90.mov")).info
        let scaled = try VideoReader(url: Fixture.url("video/rotated90_scaled.mov")).info
        #expect(scaled.rotation == plain.rotation && scaled.rotation.degrees == 90)
        #expect(scaled.height > scaled.width, "portrait, as the rotation asks: \(scaled.width)x\(scaled.height)")
        let a = try Thumbnailer(options: ThumbnailOptions(size: .original)).thumbnail(of: Fixture.url("video/rotated90.mov"))
        let b = try Thumbnailer(options: ThumbnailOptions(size: .original)).thumbnail(of: Fixture.url("video/rotated90_scaled.mov"))
        // Same corners, twice as tall.
        #expect(b.height == 2 * a.height && b.width == a.width)
        for (x, y) in [(5, 5), (a.width - 5, 5), (5, a.height - 5), (a.width - 5, a.height - 5)] {
            let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y * 2)
            #expect(abs(Int(p.r) - Int(q.r)) < 24 && abs(Int(p.g) - Int(q.g)) < 24 && abs(Int(p.b) - Int(q.b)) < 24)
        }
    }

    /// Fragmented MP4 writers put 0xFFFFFFFF ("unknown") in the duration fields: that is not a
    /// 39-hour clip for --max-duration, and --at 50% measures the length from the timestamps.
    @Test func openEndedHeaderDurationIsIgnored() throws {
        let url = Fixture.url("video/fragmented_open.mp4")
        #expect(Demuxer.isOpenEndedDuration(Double(UInt32.max) / 15360))
        #expect(!Demuxer.isOpenEndedDuration(7200) && !Demuxer.isOpenEndedDuration(4))
        let info = try VideoReader(url: url).info
        #expect(info.duration == nil, "\(String(describing: info.duration))")
        let dir = Fixture.scratchDirectory()
        var options = GIFOptions()
        options.limits.maxDuration = 10
        let gif = try GIFConverter(options: options).convert(video: url, to: dir.appendingPathComponent("o.gif"))
        // Fragments carry no edit list: timestamps start at 0.067 s (the B-frame delay).
        #expect(abs(gif.durationCentiseconds - 400) <= 4, "\(gif.durationCentiseconds) cs")
        let measured = try #require(try StreamTiming.measure(url).duration)
        #expect(abs(measured - 4) < 0.1, "\(measured) s")
        // --at 50% takes the length from the timestamps instead of refusing.
        let middle = try Thumbnailer(options: ThumbnailOptions(position: .fraction(0.5))).thumbnail(of: url)
        #expect(middle.width == 160 && middle.height == 120)
    }

    /// LZW minimum code sizes 9 to 11 (outside GIF89a, read by browsers, Pillow, ffmpeg and
    /// gifsicle) decode; the three fixtures encode one image, so they must agree pixel for pixel.
    @Test func largeMinimumCodeSizesDecode() throws {
        var canvases: [RGBAImage] = []
        for size in 9...11 {
            let animation = try GIFAnimation(url: Fixture.url("hostile/gif_min_code_size_\(size).gif"))
            canvases.append(try #require(try animation.next()).canvas)
            #expect(animation.warnings.isEmpty, "\(size): \(animation.warnings)")
        }
        #expect(canvases[0] == canvases[1] && canvases[1] == canvases[2])
        let greys = Set(stride(from: 0, to: canvases[0].pixels.count, by: 4).map { canvases[0].pixels[$0] })
        #expect(greys.count > 50, "a gradient, not a flat or garbage picture: \(greys.count) levels")
    }

    /// With no colour table at all, the transparent index is still transparent.
    @Test func transparentIndexWithoutAnyPalette() throws {
        let clear = try #require(try GIFAnimation(url: Fixture.url("hostile/gif_no_palette_transparent.gif")).next()).canvas
        #expect(alphaCount(clear) == 16 * 16)
        let mixed = try #require(try GIFAnimation(url: Fixture.url("hostile/gif_no_palette_mixed.gif")).next()).canvas
        #expect(alphaCount(mixed) == 8 * 16, "the checker's transparent half")
    }

    /// One picture over 3 s of audio (a title card) lasts the clip, not one frame's 4 cs.
    @Test func singlePictureLastsTheClip() throws {
        let out = Fixture.scratchDirectory().appendingPathComponent("s.gif")
        let gif = try GIFConverter().convert(video: Fixture.url("video/still_over_audio.mp4"), to: out)
        #expect(gif.frameCount == 1 && gif.durationCentiseconds == 300)
    }

    /// HDR10 (PQ) and HLG thumbnails match libavfilter's zscale + tonemap=hable (the reference
    /// PNGs, made by Fixtures/make-fixtures.sh) closely; without tone mapping they are far off.
    @Test(arguments: ["hdr10_pq", "hdr_hlg", "hdr10_nometa"])
    func hdrIsToneMappedLikeLibavfilter(_ name: String) throws {
        let url = Fixture.url("video/\(name).mp4")
        let info = try VideoReader(url: url).info
        #expect(info.isHDR && info.colorPrimaries == "bt2020")
        let ours = try Thumbnailer(options: ThumbnailOptions(size: .original)).thumbnail(of: url)
        let reference = try PNGReader.read(Fixture.url("video/\(name).reference.png"))
        #expect((ours.width, ours.height) == (reference.width, reference.height))
        var total = 0, count = 0
        for i in stride(from: 0, to: ours.pixels.count, by: 4) {
            for c in 0..<3 { total += abs(Int(ours.pixels[i + c]) - Int(reference.pixels[i + c])) }
            count += 3
        }
        let meanError = Double(total) / Double(count)
        // Measured 4.2 (PQ) and 4.1 (HLG) levels: chroma subsampling of the reference's yuv420p
        // step accounts for most; a plain BT.709 conversion is 23 to 47 levels off.
        #expect(meanError < 6, "mean error \(meanError) levels")
    }

    /// `--at T` gives exactly the frame a full decode from the beginning shows at T, on the
    /// files where seeking goes wrong: TS with B-frames, open GOPs, one keyframe, a cut MP4.
    @Test(arguments: ["seek_ts_bframes.ts", "seek_opengop.mp4", "seek_onekey.webm", "seek_cut.mp4", "counter.mp4"])
    func atIsTheFrameAFullDecodeShows(_ name: String) throws {
        let url = Fixture.url("video/\(name)")
        var all: [(time: Double, image: RGBAImage)] = []
        let frames = try VideoReader(url: url).frames(options: FrameReadOptions())
        while let frame = try frames.next() { all.append((frame.sourceTime, frame.image)) }
        #expect(all.count > 60, "\(name): \(all.count) frames")
        for target in [0.5, 1.25, 1.5, 2.2, 2.5, 2.8] where target < all.last!.time {
            guard let shown = all.last(where: { $0.time <= target + 1e-6 }) else { continue }
            let thumb = try Thumbnailer(options: ThumbnailOptions(position: .seconds(target), size: .original)).thumbnail(of: url)
            let match = all.first(where: { $0.image == thumb })?.time
            #expect(match == shown.time, "\(name) at \(target): shows the frame at \(String(describing: match)), not \(shown.time)")
        }
    }

    /// A raw stream without timestamps (frames timed by their order at the nominal rate), which
    /// neither a timestamp nor a byte seek may move: `--at` still gives the frame a full decode
    /// shows (it failed with "no frame could be decoded": the pass from the beginning could not
    /// rewind and read nothing).
    @Test func atWorksOnARawStreamWithoutTimestamps() throws {
        let url = Fixture.url("video/raw_annexb.h264")
        var all: [(time: Double, image: RGBAImage)] = []
        let frames = try VideoReader(url: url).frames(options: FrameReadOptions())
        while let frame = try frames.next() { all.append((frame.sourceTime, frame.image)) }
        #expect(all.count == 30)
        for target in [0.5, 1.25, 2.2] {
            guard let shown = all.last(where: { $0.time <= target + 1e-6 }) else { continue }
            let thumb = try Thumbnailer(options: ThumbnailOptions(position: .seconds(target), size: .original)).thumbnail(of: url)
            #expect(all.first(where: { $0.image == thumb })?.time == shown.time, "at \(target)")
        }
        // Its length is its frames at the nominal rate, as they are timed: 30 at 10 fps. (It was
        // unknown: `--at 50%` was refused and a storyboard was one tile with a 1 ms cue.)
        #expect(try StreamTiming.measure(url).duration == 3)
        let half = try Thumbnailer(options: ThumbnailOptions(position: .fraction(0.5), size: .original)).thumbnail(of: url)
        #expect(half == (try Thumbnailer(options: ThumbnailOptions(position: .seconds(1.5), size: .original)).thumbnail(of: url)))
        let board = try WrittenStoryboard("raw_annexb.h264", StoryboardOptions(spacing: .interval(0.5)))
        board.checkStructure()
        #expect(board.track.cues.count == 6 && board.manifest.durationMs == 3000, "\(board.track.cues)")
    }

    /// Cover art in an audio file is not a one-frame video.
    @Test func coverArtIsNoVideo() throws {
        #expect(throws: ClipKitError.noVideoStream(path: Fixture.url("video/cover_art.m4a").path)) {
            _ = try VideoReader(url: Fixture.url("video/cover_art.m4a"))
        }
    }

    /// 60 fps in millisecond timestamps (16 and 17 ms gaps) is not a variable frame rate.
    @Test func millisecondRoundingIsNotVariableFrameRate() throws {
        let timing = try StreamTiming.measure(Fixture.url("video/fps60.mkv"))
        #expect(!timing.isVariableFrameRate)
        #expect(abs((timing.measuredFrameRate ?? 0) - 60) < 0.5)
        #expect(try StreamTiming.measure(Fixture.url("video/vfr.mkv")).isVariableFrameRate, "a real VFR clip still is")
    }
}
