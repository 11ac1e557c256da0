// `--palette auto`: small pictures share one palette (the global table), held in memory; larger ones keep their own.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct SharedPaletteTests {
    func convert(_ name: String, width: Int, _ configure: (inout GIFOptions) -> Void = { _ in }) throws -> (GiflibReference, Data) {
        var options = GIFOptions()
        options.fps = 5
        options.size = .width(width)
        configure(&options)
        let out = Fixture.scratchDirectory().appendingPathComponent("out.gif")
        _ = try GIFConverter(options: options).convert(video: Fixture.url("video/\(name)"), to: out)
        return (try GiflibReference(url: out), try Data(contentsOf: out))
    }

    /// The source frames the GIF's frames stand for, at its size.
    func sourceFrames(_ name: String, width: Int) throws -> [RGBAImage] {
        let reader = try VideoReader(url: Fixture.url("video/\(name)"))
        var frames: [RGBAImage] = []
        let stream = try reader.frames(options: FrameReadOptions(fps: 5, size: .width(width)))
        while let frame = try stream.next() { frames.append(frame.image) }
        return frames
    }

    @Test func aSmallPictureSharesOneTable() throws {
        // 48 x 27: a local table of 256 colours (768 B) would outweigh a frame's pixels.
        #expect(SharedPalettePool.applies(width: 48, height: 27, options: GIFOptions()))
        let (shared, sharedBytes) = try convert("motion.mp4", width: 48)
        let (own, ownBytes) = try convert("motion.mp4", width: 48) { $0.palette = .perFrame }
        #expect(shared.images.count == 15 && own.images.count == 15)
        #expect(shared.hasGlobalTable && shared.images.allSatisfy { !$0.hasLocalTable }, "one table for every frame")
        #expect(own.images.dropFirst().allSatisfy { $0.hasLocalTable }, "--palette per-frame keeps a table on each frame")
        // The transparent index is the entry kept free after the shared colours, never one of them.
        let transparent = Set(shared.images.dropFirst().compactMap(\.transparent))
        #expect(transparent.count == 1 && shared.images.dropFirst().allSatisfy { $0.transparent != nil })
        #expect(sharedBytes.count * 10 < ownBytes.count * 7, "\(sharedBytes.count) B against \(ownBytes.count) B with a table a frame")
        // Every frame still looks like its source: dithered with the shared colours (35-37 dB
        // here, where a frame's own table holds nearly all its colours: 43-48 dB), and its
        // colours seen from a little way off within a level or so of the source's.
        let sources = try sourceFrames("motion.mp4", width: 48)
        #expect(sources.count == 15)
        for (k, source) in sources.enumerated() {
            let a = psnr(shared.canvases[k], source), seen = BlockMeanError.between(source, shared.canvases[k])
            #expect(a > 33 && seen < 1, "frame \(k): \(a) dB, \(seen) levels off over 8x8 blocks")
        }
        // Deterministic.
        #expect(try convert("motion.mp4", width: 48).1 == sharedBytes)
    }

    /// A small GIF whose frames each fit a table (240 colours) and whose clip does not (960):
    /// one shared palette would dither every frame (it did: 2,983-3,072 of 3,072 pixels off by
    /// up to 53 levels, where "frames with at most 255 colours are written losslessly"). Each
    /// frame keeps its own exact table.
    @Test func framesThatFitTheirOwnTablesStayExact() throws {
        let (w, h) = (64, 48)
        let url = Fixture.scratchDirectory().appendingPathComponent("noise.gif")
        let encoder = try GIFEncoder(url: url, width: w, height: h, globalPalette: nil, loopCount: 0)
        var seed: UInt64 = 43
        func next(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int((seed >> 33) % UInt64(n)) }
        for k in 0..<4 {
            // 240 distinct colours a frame, different in each: green carries the frame.
            var table: [UInt8] = []
            for i in 0..<240 { table += [UInt8(i), UInt8(60 * k + i % 60), UInt8(255 - i)] }
            let indices = (0..<w * h).map { _ in UInt8(next(240)) }
            try encoder.add(GIFFrame(width: w, height: h, delay: 10, disposal: .none, localPalette: table, indices: indices))
        }
        try encoder.finish()
        #expect(SharedPalettePool.applies(width: w, height: h, options: GIFOptions()))
        let out = Fixture.scratchDirectory().appendingPathComponent("out.gif")
        _ = try GIFConverter(options: GIFOptions()).convert(video: url, to: out)
        let source = try GiflibReference(url: url), written = try GiflibReference(url: out)
        #expect(written.canvases.count == 4 && written.canvases.map(\.pixels) == source.canvases.map(\.pixels))
    }

    @Test func largerPicturesKeepTheirOwnTables() throws {
        // 160 x 90: a table is about a tenth of a frame; auto writes what per-frame writes.
        #expect(!SharedPalettePool.applies(width: 160, height: 90, options: GIFOptions()))
        let (gif, auto) = try convert("motion.mp4", width: 160)
        let (_, perFrame) = try convert("motion.mp4", width: 160) { $0.palette = .perFrame }
        #expect(auto == perFrame)
        #expect(gif.images.dropFirst().contains { $0.hasLocalTable })
    }

    /// A small clip of a few colours a frame (two here, 36 in all) keeps its small tables and
    /// short codes: one table of all its colours would make it larger.
    @Test func framesOfFewColoursKeepTheirOwnTables() throws {
        let (auto, _) = try convert("cut_editlist.mp4", width: 64)
        let (own, _) = try convert("cut_editlist.mp4", width: 64) { $0.palette = .perFrame }
        #expect(SharedPalettePool.applies(width: auto.width, height: auto.height, options: GIFOptions()))
        #expect(auto.images.count == own.images.count && auto.images.count > 1)
        #expect(auto.images.dropFirst().allSatisfy { $0.hasLocalTable && $0.tableSize <= 4 }, "\(auto.images.map(\.tableSize))")
        #expect(auto.canvases == own.canvases)
    }

    @Test func theShareFollowsTheTableSize() {
        var options = GIFOptions()
        // 256 colours: up to 4,608 pixels; 64 (a table of 64 entries): up to 1,152.
        #expect(SharedPalettePool.applies(width: 64, height: 72, options: options))
        #expect(!SharedPalettePool.applies(width: 64, height: 73, options: options))
        options.colors = 64
        #expect(SharedPalettePool.applies(width: 32, height: 36, options: options))
        #expect(!SharedPalettePool.applies(width: 32, height: 37, options: options))
        options.colors = 256
        options.palette = .perFrame
        #expect(!SharedPalettePool.applies(width: 16, height: 16, options: options))
        options.palette = .auto
        options.maxBytes = 100_000
        #expect(!SharedPalettePool.applies(width: 16, height: 16, options: options), "not under --max-bytes")
    }

    /// The frames `GIFQuantizeStage` hands on for motion.mp4 at 48 px wide, 5 fps, under `options`.
    func quantized(_ options: GIFOptions) throws -> [QuantizedFrame] {
        let sources = try sourceFrames("motion.mp4", width: 48)
        var stage = GIFQuantizeStage(options: options, globalPalette: nil, transparentFrames: false, source: "test")
        let input = BoundedQueue<DecodedMessage>(capacity: sources.count + 1)
        let output = BoundedQueue<QuantizedMessage>(capacity: sources.count + 1)
        for (k, image) in sources.enumerated() {
            _ = input.push(.frame(VideoFrame(image: image, index: k, time: Double(k) / 5, sourceTime: Double(k) / 5)))
        }
        _ = input.push(.end(duration: Double(sources.count) / 5))
        try stage.run(input, output)
        var frames: [QuantizedFrame] = []
        while case .frame(let frame)? = try output.pop() { frames.append(frame) }
        #expect(frames.map(\.time) == (0..<sources.count).map { Double($0) / 5 }, "every frame, in order")
        return frames.filter { !$0.isUnchanged }
    }

    /// Past the pool's budget (a quarter of `--max-memory`) or `--max-frames`, the frames held
    /// take the palette made from them, and the frames after them their own tables, in order.
    @Test func framesPastTheBudgetGetTheirOwnTables() throws {
        var options = GIFOptions()
        options.limits.maxMemory = 4 * 3 * (48 * 27 * 4 + SharedPalettePool.frameOverhead)  // three frames held
        #expect(SharedPalettePool.budget(limits: options.limits) == 3 * (48 * 27 * 4 + SharedPalettePool.frameOverhead))
        var byFrames = GIFOptions()
        byFrames.limits.maxFrames = 2
        for (options, held) in [(options, 3), (byFrames, 2), (GIFOptions(), 15)] {
            let written = try quantized(options)
            #expect(written.count == 15)
            let first = try #require(written.first?.frame.localPalette)
            #expect(written.prefix(held).allSatisfy { $0.frame.localPalette == first }, "the \(held) frames held name one table")
            #expect(written.dropFirst(held).allSatisfy { $0.frame.localPalette != first }, "the frames after them have their own")
        }
    }
}
