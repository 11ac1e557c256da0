// Every command over the hostile corpus (Fixtures/hostile, see its README); the situations made
// at test time are in HostileSituationTests.swift. Both suites run serialized under one parent
// suite, so their timings are not skewed by each other.
import Foundation
import Testing
import TestSupport
@testable import ClipKit
#if canImport(Glibc)
import Glibc
#endif

/// One parent suite, serialized: the children spawned here do not compete for the CPU.
@Suite(.serialized) enum Hostile {}

// MARK: - The corpus

extension Hostile {
    @Suite struct Inputs {
        static let commands = ["gif", "explode", "thumb", "storyboard", "info"]

        /// Every file of Fixtures/hostile but its README, and each `*.frames/frames.json`.
        static let corpus: [String] = {
            let directory = Fixture.url("hostile")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            var inputs: [String] = []
            for name in names.sorted() where name != "README.md" {
                if Tree.isDirectory(directory.appendingPathComponent(name).path) {
                    if FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(name)/frames.json").path) {
                        inputs.append("\(name)/frames.json")
                    }
                } else {
                    inputs.append(name)
                }
            }
            return inputs
        }()

        static func hostile(_ name: String) -> URL { Fixture.url("hostile/\(name)") }

        /// The output argument a command gets in the matrix, named unlike any input so that an
        /// error line naming the output is not taken for one naming the input.
        static func output(for command: String) -> String? {
            switch command {
            case "gif": "result.gif"
            case "thumb": "result.png"
            case "explode": "result.frames"
            case "storyboard": "result.storyboard"
            default: nil
            }
        }

        /// No signal, exit 0/1/2, within `bound` seconds, under `rss` bytes.
        /// Sanitizer runtimes multiply time and memory (shadow memory); `make sanitize` says which
        /// one runs in CLIPKIT_SANITIZER and the bounds widen by these factors. `make test` checks
        /// the bounds themselves.
        static let sanitizerScale: (time: Double, memory: Int) = {
            switch ProcessInfo.processInfo.environment["CLIPKIT_SANITIZER"] {
            case "thread": return (8, 4)
            case "address": return (4, 3)
            default: return (1, 1)
            }
        }()

        /// How much a loaded machine stretches wall time: the runnable processes per core over the
        /// last minute (1 on an idle machine). Other suites run clipkit beside these ones, and CI
        /// machines are shared.
        static var loadStretch: Double {
            var load = [0.0]
            guard getloadavg(&load, 1) == 1 else { return 1 }
            return max(1, load[0] / Double(max(1, ProcessInfo.processInfo.activeProcessorCount)))
        }

        /// A `--timeout` value for runs that must succeed (it only guards against a hang): `seconds`
        /// stretched by the sanitizer and the machine's load, as the bounds are.
        static func generousTimeout(_ seconds: Double) -> String {
            String(format: "%.0f", seconds * sanitizerScale.time * loadStretch)
        }

        /// The bound holds for the CPU time clipkit spends on all cores (what it costs, whatever
        /// else runs), and for the wall time stretched by the machine's load (what a user waits; a
        /// read that blocks spends wall time without CPU time, and a hang is killed at the test's limit).
        static func expectBounded(_ run: ChildRun, _ what: String, seconds unscaledBound: Double, rss unscaledRSS: Int = 1 << 30,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
            let bound = unscaledBound * sanitizerScale.time, rss = unscaledRSS * sanitizerScale.memory
            let stretch = loadStretch, wallBound = bound * stretch
            let cpuBound = bound * Double(max(1, ProcessInfo.processInfo.activeProcessorCount))
            #expect(run.signal == nil && !run.killed, "\(what): \(run)", sourceLocation: sourceLocation)
            #expect(run.exitStatus.map { (0...2).contains($0) } == true, "\(what): \(run)", sourceLocation: sourceLocation)
            #expect(run.cpuSeconds <= cpuBound, "\(what): used \(String(format: "%.2f", run.cpuSeconds)) s of CPU, bound \(cpuBound) s; \(run)",
                    sourceLocation: sourceLocation)
            #expect(run.seconds <= wallBound,
                    "\(what): took \(String(format: "%.2f", run.seconds)) s, bound \(bound) s x load \(String(format: "%.1f", stretch)); \(run)",
                    sourceLocation: sourceLocation)
            #expect(run.maxRSS < rss, "\(what): peak RSS \(run.megabytes) MiB, bound \(rss >> 20) MiB", sourceLocation: sourceLocation)
        }

        /// Exit 1, exactly one (non-warning) stderr line naming `input` (and `option` if given),
        /// nothing left in `directory` but state files.
        static func expectRefused(_ run: ChildRun, input: String, option: String? = nil, in directory: URL,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(run.exitStatus == 1, "\(input): \(run)", sourceLocation: sourceLocation)
            #expect(run.errorLines.count == 1, "\(input): not one error line: \(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.errorLines.first?.contains(input) == true, "error line does not name \(input): \(run.stderr)",
                    sourceLocation: sourceLocation)
            if let option {
                #expect(run.stderr.contains(option), "\(input): message does not name \(option): \(run.stderr)", sourceLocation: sourceLocation)
            }
            #expect(Tree.outputs(directory).isEmpty, "\(input) failed but left \(Tree.outputs(directory))", sourceLocation: sourceLocation)
        }

        /// Every command over every hostile file, with `--timeout 5`.
        @Test(arguments: corpus, commands)
        func commandIsBoundedOnHostileInput(_ name: String, _ command: String) throws {
            let input = Self.hostile(name)
            let inputDirectory = input.deletingLastPathComponent()
            let before = try Data(contentsOf: input)
            let listing = Tree.walk(inputDirectory)
            let dir = Fixture.scratchDirectory("hostile-\(command)-\(name)")
            var arguments = [command, input.path, "--timeout", "5"]
            if let output = Self.output(for: command) { arguments += ["-o", output] } else { arguments.append("--json") }

            let run = try Spawn.clipkit(arguments, in: dir, killAfter: 30)
            Self.expectBounded(run, "\(command) \(name)", seconds: 5 + 3)

            if run.exitStatus == 0 {
                let output = Self.output(for: command).map { dir.appendingPathComponent($0) }
                switch command {
                case "gif":
                    let frames = try Decoded.gif(try #require(output), keep: 0)
                    #expect(!frames.delays.isEmpty, "\(name): GIF without frames")
                case "thumb":
                    try Decoded.png(try #require(output))
                case "explode":
                    let exploded = try Decoded.explode(try #require(output))
                    #expect(!exploded.files.isEmpty, "\(name): no frames exploded")
                case "storyboard":
                    let directory = try #require(output)
                    let manifest = try StoryboardManifest.read(from: directory.appendingPathComponent(StoryboardManifest.fileName))
                    let track = try ThumbnailTrack(contentsOf: directory.appendingPathComponent(manifest.vtt))
                    #expect(track.coverageProblem(durationMs: manifest.durationMs) == nil, "\(name): \(track.coverageProblem(durationMs: manifest.durationMs) ?? "")")
                default:
                    let lines = try Decoded.jsonLines(run.stdout)
                    #expect(lines.count == 1 && lines.first?["input"] as? String == input.path, "\(name): \(run.stdout)")
                }
            } else if run.exitStatus == 1 {
                Self.expectRefused(run, input: input.path, in: dir)
            } else if run.exitStatus == 2 {
                #expect(Tree.outputs(dir).isEmpty, "usage error but left \(Tree.outputs(dir))")
            }
            #expect(Tree.leftoverTemps(dir).isEmpty, "temp files left: \(Tree.leftoverTemps(dir))")
            #expect(try Data(contentsOf: input) == before, "\(name) changed")
            #expect(Tree.walk(inputDirectory) == listing, "files appeared or vanished beside \(name)")
        }

        // MARK: Crisp expectations from the README table

        /// 3000 empty 10000x10000 images: refused from the declared pixels, before any is decoded.
        @Test(arguments: ["gif_empty_images_10k.gif", "gif_empty_images_10k_nodata.gif", "gif_empty_images_10k_previous.gif"],
              ["gif", "explode", "thumb"])
        func emptyImageBombIsRefusedQuickly(_ name: String, _ command: String) throws {
            let input = Self.hostile(name)
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!], in: dir)
            Self.expectBounded(run, "\(command) \(name)", seconds: 3, rss: 300 << 20)
            Self.expectRefused(run, input: input.path, option: "--max-decoded-pixels", in: dir)
        }

        /// Frames that grow past --max-pixels mid-stream are refused when decoded, not only at the header.
        @Test(arguments: ["mjpeg_grows_4000.avi", "h264_grows_1080p.h264"], ["gif", "explode"])
        func growingFrameIsCheckedAgainstMaxPixels(_ name: String, _ command: String) throws {
            let input = Self.hostile(name)
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!, "--max-pixels", "1000000"], in: dir)
            Self.expectBounded(run, "\(command) \(name)", seconds: 10)
            Self.expectRefused(run, input: input.path, option: "--max-pixels", in: dir)
        }

        /// A 10000x10000 canvas with one pixel: exploded in bounded memory (one PNG, flat).
        @Test func explodeOfOnePixelOnBigCanvasStaysUnder600MB() throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["explode", Self.hostile("gif_canvas_10k_one_pixel.gif").path, "-o", "result.frames"], in: dir)
            Self.expectBounded(run, "explode gif_canvas_10k_one_pixel.gif", seconds: 60, rss: 600 << 20)
            #expect(run.exitStatus == 0, "\(run)")
            if run.exitStatus == 0 {
                let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
                #expect(exploded.files.count == 1)
                let size = try PNGReader.size(of: dir.appendingPathComponent("result.frames/\(exploded.files[0])"))
                #expect(size == (10000, 10000))
            }
        }

        /// `explode counter.mp4 --fps 1e9`: a usage error, nothing written.
        @Test func explodeWithAbsurdFPSIsAUsageError() throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["explode", Fixture.url("video/counter.mp4").path, "--fps", "1e9", "-o", "result.frames"], in: dir)
            Self.expectBounded(run, "explode --fps 1e9", seconds: 5)
            #expect(run.exitStatus == 2, "\(run)")
            #expect(run.stderr.contains("--fps"), "\(run.stderr)")
            #expect(Tree.outputs(dir).isEmpty, "left \(Tree.outputs(dir))")
        }

        /// README, command-line cases: absurd --fps and --speed are exit 2 with one line naming the option.
        @Test(arguments: [["--fps", "1e9"], ["--fps", "0"], ["--fps", "nan"], ["--fps", "inf"], ["--speed", "1e-9"], ["--speed", "1e300"]])
        func absurdRateIsOneLineUsageError(_ option: [String]) throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["gif", Fixture.url("video/counter.mp4").path, "-o", "result.gif"] + option, in: dir)
            Self.expectBounded(run, "gif \(option)", seconds: 5)
            #expect(run.exitStatus == 2, "\(run)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(option[0]), "\(run.stderr)")
            #expect(Tree.outputs(dir).isEmpty)
        }

        /// README, command-line cases: absurd times and limits end in exit 2 (or 1 past the end, or a
        /// documented meaning), never a conversion trap or a hang.
        @Test(arguments: [["gif", "--start", "1e300"], ["gif", "--duration", "1e-9"], ["gif", "--end", "-1"],
                          ["thumb", "--at", "1e308"], ["thumb", "--at", "100000000000%"],
                          ["gif", "--max-pixels", "0"], ["gif", "--max-frames", "-1"], ["gif", "--timeout", "0"], ["gif", "--jobs", "100000"]])
        func absurdNumberDoesNotTrap(_ arguments: [String]) throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([arguments[0], Fixture.url("video/counter.mp4").path, "-o", Self.output(for: arguments[0])!]
                                            + arguments.dropFirst(), in: dir)
            Self.expectBounded(run, "\(arguments)", seconds: 10)
            if run.exitStatus == 1 { #expect(run.errorLines.count == 1, "\(run.stderr)") }
            if run.exitStatus != 0 { #expect(Tree.outputs(dir).isEmpty, "left \(Tree.outputs(dir))") }
        }

        /// A PNG whose header claims 50000x50000: refused from the header, naming --max-pixels.
        @Test(arguments: ["gif", "explode", "thumb"])
        func pngHeaderBombIsRefusedByMaxPixels(_ command: String) throws {
            let input = Self.hostile("png_claims_50000x50000.png")
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!], in: dir)
            Self.expectBounded(run, "\(command) png_claims_50000x50000.png", seconds: 5, rss: 300 << 20)
            Self.expectRefused(run, input: input.path, option: "--max-pixels", in: dir)
        }

        /// Manifests naming a file outside their directory are refused before any file is opened.
        @Test(arguments: ["manifest_dotdot", "manifest_absolute", "manifest_devzero", "manifest_dotdot_bare"])
        func manifestPointingOutsideIsRefused(_ name: String) throws {
            let input = Self.hostile("\(name).frames/frames.json")
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir, killAfter: 20)
            Self.expectBounded(run, "gif \(name)", seconds: 5)
            Self.expectRefused(run, input: input.path, in: dir)
            #expect(run.stderr.contains("must be a file name in the manifest's directory"), "\(run.stderr)")
        }

        /// info reports sizes and durations from headers.
        @Test(arguments: [("gif_canvas_10k_one_pixel.gif", 10000, 10000), ("png_6000x6000_flat.png", 6000, 6000)])
        func infoReportsHeaderSize(_ name: String, _ width: Int, _ height: Int) throws {
            let run = try Spawn.clipkit(["info", Self.hostile(name).path, "--json"], in: Fixture.scratchDirectory())
            Self.expectBounded(run, "info \(name)", seconds: 5, rss: 300 << 20)
            let line = try #require(try Decoded.jsonLines(run.stdout).first)
            #expect(line["width"] as? Int == width && line["height"] as? Int == height, "\(run.stdout)")
        }

        @Test func infoReportsTheGapInDuration() throws {
            let run = try Spawn.clipkit(["info", Self.hostile("gap_700s.mkv").path, "--json"], in: Fixture.scratchDirectory())
            Self.expectBounded(run, "info gap_700s.mkv", seconds: 5)
            let line = try #require(try Decoded.jsonLines(run.stdout).first)
            let duration = try #require(line["duration_ms"] as? Int, "\(run.stdout)")
            #expect((700_000...702_000).contains(duration), "duration_ms \(duration)")
        }

        /// Damage FFmpeg's frame threads conceal differently from run to run (5 different GIFs
        /// in 6 runs): a decode on several threads gives up at it, and the job is done again on
        /// one thread, so every run writes the same bytes.
        @Test func damageGivesTheSameBytesEveryRun() throws {
            let url = Self.hostile("h264_flipped_64.h264")
            var read = FrameReadOptions(fps: 10, size: .width(160))
            read.threadCount = 2
            read.limits.decoderThreads = .perCoreUntilDamage
            #expect(throws: ThreadedDecodeDamage.self) {
                let frames = try VideoReader(url: url).frames(options: read)
                while try frames.next() != nil {}
            }
            let scratch = Fixture.scratchDirectory()
            var outputs: Set<Data> = []
            for run in 0..<4 {
                let gif = try Spawn.clipkit(["gif", url.path, "-o", "g\(run).gif", "-q"], in: scratch)
                Self.expectBounded(gif, "gif h264_flipped_64.h264", seconds: 20)
                outputs.insert(try Data(contentsOf: scratch.appendingPathComponent("g\(run).gif")))
            }
            #expect(outputs.count == 1, "\(outputs.count) different GIFs in 4 runs")
        }

        /// 4000 zero-delay images then one of 1 s: one displayed frame everywhere.
        @Test func zeroDelayFloodIsOneFrame() throws {
            let input = Self.hostile("gif_zero_delay_flood.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir)
            Self.expectBounded(explode, "explode", seconds: 30)
            let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
            #expect(exploded.delays == [100], "explode delays \(exploded.delays)")

            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir)
            Self.expectBounded(gif, "gif", seconds: 30)
            #expect(try Decoded.gif(dir.appendingPathComponent("result.gif"), keep: 0).delays.count == 1)

            let info = try Spawn.clipkit(["info", input.path, "--json"], in: dir)
            let line = try #require(try Decoded.jsonLines(info.stdout).first)
            #expect(line["frame_count"] as? Int == 1 && line["duration_ms"] as? Int == 1000, "\(info.stdout)")
        }

        /// Delays of 0 and 1 cs: explode keeps the stored delays (1992 frames, 2091 cs); gif never
        /// writes a delay under 2 cs and lasts what info says (one timing rule for both).
        @Test func delayFloodKeepsOneTimingRule() throws {
            let input = Self.hostile("gif_delay_0_1_flood.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames", "--timeout", Self.generousTimeout(60)], in: dir, killAfter: 90)
            Self.expectBounded(explode, "explode", seconds: 63)
            #expect(explode.exitStatus == 0, "\(explode)")
            if explode.exitStatus == 0 {
                let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
                #expect(exploded.files.count == 1992)
                #expect(exploded.delays.reduce(0, +) == 2091)
            }

            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif", "--timeout", Self.generousTimeout(60)], in: dir, killAfter: 90)
            Self.expectBounded(gif, "gif", seconds: 63)
            #expect(gif.exitStatus == 0, "\(gif)")
            let info = try Spawn.clipkit(["info", input.path, "--json"], in: dir)
            let line = try #require(try Decoded.jsonLines(info.stdout).first)
            let infoCs = try #require(line["duration_ms"] as? Int) / 10
            if gif.exitStatus == 0 {
                let delays = try Decoded.gif(dir.appendingPathComponent("result.gif"), keep: 0).delays
                #expect(delays.allSatisfy { $0 >= 2 }, "gif wrote delays under 2 cs: \(Set(delays).sorted())")
                let gifCs = delays.reduce(0, +)
                #expect(abs(gifCs - infoCs) <= 10, "gif lasts \(gifCs) cs, info says \(infoCs) cs")
            }
        }

        /// A container that states a fifth of the clip's length: `--max-bytes` projects a pass's size
        /// from the expected frame count, and must not take that count for the truth (it took the
        /// first frames' bytes for the whole and ended in "no GIF fits").
        @Test func maxBytesFitsAClipLongerThanItsContainerSays() throws {
            let dir = Fixture.scratchDirectory()
            for (limit, delays) in try Self.fit(Self.hostile("duration_understated.mp4"), limits: [60_000, 30_000], in: dir) {
                // All 2 s of it, not the 0.4 s the container claims.
                #expect(abs(delays.reduce(0, +) - 200) <= 10, "\(limit): \(delays)")
            }
        }

        /// `gif --max-bytes` at each limit: it fits, at `share` of the limit or more; the delays of each GIF.
        static func fit(_ input: URL, limits: [Int], share: Double = 0.8, in dir: URL,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> [(Int, [Int])] {
            try limits.compactMap { limit in
                let run = try Spawn.clipkit(["gif", input.path, "-o", "fit\(limit).gif", "--max-bytes", "\(limit)"], in: dir, killAfter: 90)
                expectBounded(run, "gif --max-bytes \(limit)", seconds: 60, sourceLocation: sourceLocation)
                #expect(run.exitStatus == 0, "\(run)", sourceLocation: sourceLocation)
                guard run.exitStatus == 0 else { return nil }
                let url = dir.appendingPathComponent("fit\(limit).gif")
                let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
                #expect(size <= limit && Double(size) >= share * Double(limit), "\(size) bytes for a limit of \(limit)",
                        sourceLocation: sourceLocation)
                return (limit, try Decoded.gif(url, keep: 0).delays)
            }
        }

        /// A cut file whose index promises 20 frames where 8 are: the passes' projections run 2.5x
        /// high, so the fit must learn the real count (it made a GIF at 40% of the limit, and
        /// "no GIF fits" at limits a narrow GIF meets), the narrowest picture must try the levels
        /// below the floor, and "nothing fits" must name a size made.
        @Test func maxBytesFitsAClipShorterThanItsIndexPromises() throws {
            let input = Self.hostile("duration_overstated.mp4")
            let dir = Fixture.scratchDirectory()
            // 30 KB near the limit, not at the 40% the promised count led to; 15 KB at all (the
            // passes allowed run out before the search climbs back).
            let fits = try Self.fit(input, limits: [30_000], in: dir) + Self.fit(input, limits: [15_000], share: 0.5, in: dir)
            #expect(fits.count == 2 && fits.allSatisfy { $0.1.count >= 6 }, "\(fits)")
            // Once the count proves wrong, the exact passes have room to converge: 24 KB at 92.6%
            // (with the projections' five passes, 79.5%: the last width under was written).
            let converged = try Self.fit(input, limits: [24_000], share: 0.9, in: dir)
            #expect(converged.count == 1, "\(converged)")
            // 5 KB: not at level 80 even 16 px wide (11.7 KB); a level below it, 16 px wide, fits.
            let narrow = try Self.fit(input, limits: [5000], share: 0.5, in: dir)
            #expect(narrow.count == 1 && narrow.allSatisfy { $0.1.count >= 6 }, "\(narrow)")
            let narrowGIF = try #require(try Decoded.gif(dir.appendingPathComponent("fit5000.gif"), keep: 1).canvases.first)
            #expect(narrowGIF.width == 16, "\(narrowGIF.width)x\(narrowGIF.height)")
            // 1.2 KB: level 1 at 16 px is 1,467 B (31 colours and the transparent entry in a table
            // of 32; 1.9 KB when 32 colours took one of 64), so nothing fits.
            let tiny = try Spawn.clipkit(["gif", input.path, "-o", "tiny.gif", "--max-bytes", "1200"], in: dir, killAfter: 90)
            Self.expectBounded(tiny, "gif --max-bytes 1200", seconds: 60)
            #expect(tiny.exitStatus == 1 && tiny.errorLines.count == 1, "\(tiny)")
            // What the narrowest made at the lowest level for certain: its exact size, or that it passed the limit.
            #expect(tiny.stderr.contains("the smallest clipkit makes (16x12, --quality 1)") && !tiny.stderr.contains("projected")
                    && (tiny.stderr.contains(") is ") || tiny.stderr.contains("passes 1200 bytes before its end")), "\(tiny.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("tiny.gif").path))
        }

        /// `thumb --at` a percentage of a clip shorter than its index promises (2 s, 0.8 s there):
        /// the same share of the frames there are, with a warning ("start 1.800s is past the end
        /// of the clip", exit 1, before); a time in seconds past them stays an error.
        @Test func thumbAtAPercentageTakesTheShareOfTheFramesThereAre() throws {
            let input = Self.hostile("duration_overstated.mp4")
            let dir = Fixture.scratchDirectory()
            for (percent, time) in [(50, 0.4), (90, 0.72), (100, 0.7)] {
                let run = try Spawn.clipkit(["thumb", input.path, "--at", "\(percent)%", "-o", "at\(percent).png"], in: dir, killAfter: 60)
                #expect(run.exitStatus == 0 && run.stderr.contains("the frames end at 0.800s, short of the duration the header states"), "\(run)")
                // Besides, where the decode reached the packet the cut split: that it is damaged.
                #expect(run.stderr.split(separator: "\n").filter { !$0.hasSuffix(": damaged video data: 1 packet could not be decoded (Invalid data found when processing input), the frame before left on screen") }.count == 1,
                        "\(run.stderr)")
                // The frame on screen there, as --at in seconds gives it.
                let seconds = try Spawn.clipkit(["thumb", input.path, "--at", "\(time)", "-o", "s\(percent).png"], in: dir, killAfter: 60)
                #expect(seconds.exitStatus == 0, "\(seconds)")
                #expect(try PNGReader.read(dir.appendingPathComponent("at\(percent).png")) == PNGReader.read(dir.appendingPathComponent("s\(percent).png")))
            }
            let past = try Spawn.clipkit(["thumb", input.path, "--at", "1.5", "-o", "past.png"], in: dir, killAfter: 60)
            #expect(past.exitStatus == 1 && past.stderr.contains("is past the end of the clip"), "\(past)")
        }

        /// A 700 s gap: gif splits the long delay (never wrapped or clamped) or refuses by --max-duration;
        /// explode's delays fit a GIF and sum to the duration, or `clipkit gif` rejects its manifest.
        @Test func longGapIsNotClampedOrWrapped() throws {
            let input = Self.hostile("gap_700s.mkv")
            let dir = Fixture.scratchDirectory()
            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif", "--timeout", Self.generousTimeout(120)], in: dir, killAfter: 150)
            Self.expectBounded(gif, "gif", seconds: 123)
            if gif.exitStatus == 0 {
                let delays = try Decoded.gif(dir.appendingPathComponent("result.gif"), keep: 0).delays
                #expect(abs(delays.reduce(0, +) - 70_100) <= 10, "GIF lasts \(delays.reduce(0, +)) cs, not 70100: \(delays)")
            } else {
                #expect(gif.stderr.contains("--max-duration"), "\(gif)")
            }

            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir, killAfter: 60)
            Self.expectBounded(explode, "explode", seconds: 30)
            #expect(explode.exitStatus == 0, "\(explode)")
            guard explode.exitStatus == 0 else { return }
            let exploded = try Decoded.explode(dir.appendingPathComponent("result.frames"))
            #expect(abs(exploded.delays.reduce(0, +) - 70_100) <= 10, "delays \(exploded.delays)")
            // A delay over a GIF image's 65535 cs is kept in the manifest and carried on by gif.
            let rebuild = try Spawn.clipkit(["gif", "result.frames/frames.json", "-o", "rebuilt.gif"], in: dir)
            #expect(rebuild.exitStatus == 0, "\(rebuild)")
            if rebuild.exitStatus == 0 {
                let delays = try Decoded.gif(dir.appendingPathComponent("rebuilt.gif"), keep: 0).delays
                #expect(abs(delays.reduce(0, +) - 70_100) <= 10, "rebuilt GIF lasts \(delays.reduce(0, +)) cs")
            }
        }

        /// The LZW ratio bomb (64 Mpixel from 26 KB) decodes with one index buffer and one canvas.
        @Test(arguments: ["gif", "explode", "thumb"])
        func lzwRatioBombDecodesInBoundedMemory(_ command: String) throws {
            let input = Self.hostile("gif_lzw_ratio_bomb_8k.gif")
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit([command, input.path, "-o", Self.output(for: command)!, "--timeout", Self.generousTimeout(60)], in: dir, killAfter: 90)
            // 64 MB of indices + 256 MB of canvas + the process itself; two canvases would pass 512 MiB.
            Self.expectBounded(run, "\(command)", seconds: 63, rss: 512 << 20)
            if run.exitStatus != 0 { #expect(run.stderr.contains("(raise it with --"), "\(run)") }
        }

        /// Transparency of a first image that covers part of the canvas is kept (never red, never black).
        @Test func partialTransparentFirstFrameKeepsAlpha() throws {
            let input = Self.hostile("gif_partial_transparent_first.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir)
            #expect(explode.exitStatus == 0, "\(explode)")
            let frame0 = try PNGReader.read(dir.appendingPathComponent("result.frames/frame_0000.png"))
            let frame1 = try PNGReader.read(dir.appendingPathComponent("result.frames/frame_0001.png"))
            #expect(frame0.width == 40 && frame0.height == 30)
            var wrong0: [String] = [], wrong1: [String] = []
            for y in 0..<30 {
                for x in 0..<40 {
                    let inside = (10..<30).contains(x) && (5..<25).contains(y)
                    let green = inside && ((x - 10) / 2 + (y - 5) / 2) % 2 == 1
                    let p = frame0.pixel(x: x, y: y)
                    if green ? (p.a != 255 || p.g < 150) : p.a != 0 { wrong0.append("(\(x),\(y))=\(p)") }
                    let blue = x < 10 && y < 10
                    let q = frame1.pixel(x: x, y: y)
                    if blue ? (q.a != 255 || q.b < 150) : (q.a != p.a) { wrong1.append("(\(x),\(y))=\(q)") }
                }
            }
            #expect(wrong0.isEmpty, "frame 0: \(wrong0.count) wrong pixels, e.g. \(wrong0.prefix(4))")
            #expect(wrong1.isEmpty, "frame 1: \(wrong1.count) wrong pixels, e.g. \(wrong1.prefix(4))")

            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir)
            #expect(gif.exitStatus == 0, "\(gif)")
            let canvas = try #require(try Decoded.gif(dir.appendingPathComponent("result.gif")).canvases.first)
            let outside = [(0, 0), (39, 29), (5, 20), (35, 2)].map { ($0, canvas.pixel(x: $0.0, y: $0.1)) }.filter { $0.1.a != 0 }
            #expect(outside.isEmpty, "gif frame 0 opaque outside the first image: \(outside)")
        }

        /// A GIF with no palette: explode and gif agree, and the only index used (declared
        /// transparent) gives a transparent frame.
        @Test func noPaletteTransparentIsTransparentEverywhere() throws {
            let input = Self.hostile("gif_no_palette_transparent.gif")
            let dir = Fixture.scratchDirectory()
            let explode = try Spawn.clipkit(["explode", input.path, "-o", "result.frames"], in: dir)
            #expect(explode.exitStatus == 0, "\(explode)")
            let exploded = try PNGReader.read(dir.appendingPathComponent("result.frames/frame_0000.png"))
            let gif = try Spawn.clipkit(["gif", input.path, "-o", "result.gif"], in: dir)
            #expect(gif.exitStatus == 0, "\(gif)")
            let converted = try #require(try Decoded.gif(dir.appendingPathComponent("result.gif")).canvases.first)
            #expect(exploded.pixels == converted.pixels, "explode and gif disagree")
            let opaque = stride(from: 3, to: exploded.pixels.count, by: 4).filter { exploded.pixels[$0] != 0 }.count
            #expect(opaque == 0, "\(opaque) of 256 pixels not transparent")
        }

        /// Mismatched PNG sizes: one canvas (2 frames) or a one-line refusal naming both sizes.
        @Test func mismatchedPNGSizes() throws {
            let dir = Fixture.scratchDirectory()
            let run = try Spawn.clipkit(["gif", Self.hostile("png_160x120_rgb.png").path, Self.hostile("png_97x31_rgba.png").path,
                                         "-o", "result.gif"], in: dir)
            Self.expectBounded(run, "gif of 160x120 and 97x31", seconds: 10)
            if run.exitStatus == 0 {
                let frames = try Decoded.gif(dir.appendingPathComponent("result.gif"))
                #expect(frames.delays.count == 2)
            } else {
                #expect(run.exitStatus == 1 && run.errorLines.count == 1, "\(run)")
                #expect(run.stderr.contains("160x120") && run.stderr.contains("97x31"), "\(run.stderr)")
                #expect(Tree.outputs(dir).isEmpty)
            }
            let big = try Spawn.clipkit(["gif", Self.hostile("png_160x120_rgb.png").path, Self.hostile("png_6000x6000_flat.png").path,
                                         "-o", "big.gif", "--timeout", Self.generousTimeout(30)], in: dir, killAfter: 60)
            Self.expectBounded(big, "gif of 160x120 and 6000x6000", seconds: 33)
            if big.exitStatus == 1 { #expect(big.errorLines.count == 1, "\(big.stderr)") }
        }
    }
}
