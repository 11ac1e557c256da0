// Storyboards that cannot be made fail with one error and leave nothing; earlier outputs are replaced only when clipkit's own.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct StoryboardFailureTests {
    func make(_ fixture: String, _ options: StoryboardOptions, in scratch: URL) throws -> Storyboarder.Result {
        try Storyboarder(options: options).makeStoryboard(of: Fixture.url("video/\(fixture)"), in: scratch.appendingPathComponent("out.storyboard"))
    }

    /// Nothing but what was there before: no output directory, no staging directory, no temp file.
    func expectNothingLeft(in scratch: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(CLIFiles.names(in: scratch).isEmpty, "left \(CLIFiles.names(in: scratch))", sourceLocation: sourceLocation)
    }

    @Test func badInputsFailWholly() throws {
        for name in ["not_video.mp4", "audio_only.m4a", "truncated.mp4", "cover_art.m4a", "missing.mp4"] {
            let scratch = Fixture.scratchDirectory()
            #expect(throws: ClipKitError.self, "\(name)") { try make(name, StoryboardOptions(), in: scratch) }
            expectNothingLeft(in: scratch)
        }
    }

    @Test func optionsThatCannotWorkAreUsageErrors() throws {
        let scratch = Fixture.scratchDirectory()
        var bad: [StoryboardOptions] = [StoryboardOptions(spacing: .count(0)), StoryboardOptions(spacing: .interval(0)),
                                        StoryboardOptions(spacing: .interval(-1)), StoryboardOptions(tileSize: .width(0))]
        var zeroColumns = StoryboardOptions()
        zeroColumns.columns = 0
        var badQuality = StoryboardOptions()
        badQuality.quality = 101
        bad += [zeroColumns, badQuality]
        for options in bad {
            #expect { try make("counter.mp4", options, in: scratch) } throws: { ($0 as? ClipKitError)?.isUsageError == true }
        }
        expectNothingLeft(in: scratch)
    }

    /// Rows wider than the format can store are refused before decoding (WebP: 16383 pixels), as
    /// this input's failure (the tile size is the input's), naming what to change.
    @Test func sheetsTooLargeForTheFormat() throws {
        let scratch = Fixture.scratchDirectory()
        var options = StoryboardOptions(format: .webp)
        options.columns = 200
        options.tilesPerSheet = 200
        #expect { try make("counter.mp4", options, in: scratch) } throws: { error in
            let text = "\(error)"
            return (error as? ClipKitError)?.isUsageError == false && text.hasPrefix(Fixture.url("video/counter.mp4").path + ": ")
                && text.contains("rows of 200 tiles of 160x120 pixels are 32000 pixels wide, over webp's 16383-pixel limit")
                && text.contains("at most 102 --columns")
        }
        expectNothingLeft(in: scratch)
    }

    /// A tile taller than a sheet may be (160 px wide tiles of a picture 125 times taller than
    /// wide, as WebP) fits no layout: the reason names --tile with a box that fits.
    @Test func tileTallerThanTheFormatAllows() throws {
        #expect { _ = try Storyboarder.layout(tile: (160, 20000), options: StoryboardOptions(format: .webp), path: "in.mp4") } throws: { error in
            "\(error)" == "in.mp4: tiles of 160x20000 pixels are larger than webp's 16383-pixel limit for a sheet side; "
                + "give a smaller --tile (a box such as --tile 160x16383) or another --format"
        }
        let jpeg = try Storyboarder.layout(tile: (160, 20000), options: StoryboardOptions(), path: "in.mp4")
        #expect(jpeg.columns == 10 && jpeg.tilesPerSheet == 30 && jpeg.fullSheetSize == (1600, 60000))
    }

    /// More tiles than the clip has milliseconds cannot each get a cue.
    @Test func countTooLargeForTheClip() throws {
        let scratch = Fixture.scratchDirectory()
        #expect { try make("counter.mp4", StoryboardOptions(spacing: .count(5000)), in: scratch) } throws: { "\($0)".contains("--count 5000") }
        expectNothingLeft(in: scratch)
    }

    /// The encoder is looked up at run time; a libavcodec without it gives one line naming the format.
    @Test func missingEncoderNamesTheFormat() throws {
        #expect(throws: Never.self) { _ = try StillEncoder.findEncoder(named: "mjpeg", for: .jpeg, path: "in.mp4") }
        #expect { _ = try StillEncoder.findEncoder(named: "clipkit-no-such-encoder", for: .webp, path: "in.mp4") } throws: { error in
            let text = "\(error)"
            return text.contains("in.mp4") && text.contains("--format webp") && !text.contains("\n")
        }
    }

    @Test func limitsAreChecked() throws {
        var memory = StoryboardOptions(tileSize: .width(320))
        memory.limits.maxMemory = 1 << 20
        var frames = StoryboardOptions(spacing: .interval(0.01))
        frames.limits.maxFrames = 100
        var output = StoryboardOptions()
        output.limits.maxOutputBytes = 2000
        var duration = StoryboardOptions(keyframesOnly: true)
        duration.limits.maxDuration = 2
        for (options, option) in [(memory, "--max-memory"), (frames, "--max-frames"), (output, "--max-output"), (duration, "--max-duration")] {
            let scratch = Fixture.scratchDirectory()
            #expect { try make("motion.mp4", options, in: scratch) } throws: { "\($0)".contains(option) }
            expectNothingLeft(in: scratch)
        }
    }

    /// An existing directory is replaced only when it is an earlier storyboard's output: with
    /// --force, or when its manifest records a fingerprint (out of date). Anything else stays.
    @Test func replacesOnlyItsOwnOutput() throws {
        let scratch = Fixture.scratchDirectory()
        let target = scratch.appendingPathComponent("out.storyboard")
        _ = try make("counter.mp4", StoryboardOptions(), in: scratch)
        // No fingerprint recorded: a rerun needs --force.
        #expect { try make("counter.mp4", StoryboardOptions(), in: scratch) } throws: { "\($0)".contains("not empty") }
        var forced = StoryboardOptions(spacing: .interval(2))
        forced.force = true
        #expect(try make("counter.mp4", forced, in: scratch).manifest.tiles.count == 2)
        // A file the manifest does not list: not clipkit's, left alone even with --force.
        try Data("mine".utf8).write(to: target.appendingPathComponent("notes.txt"))
        #expect { try make("counter.mp4", forced, in: scratch) } throws: { "\($0)".contains("notes.txt") }
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("notes.txt").path))
        // An explode's directory is not a storyboard's.
        let exploded = scratch.appendingPathComponent("frames")
        _ = try Exploder(options: ExplodeOptions(fps: 1)).explode(Fixture.url("video/counter.mp4"), into: exploded)
        #expect {
            try Storyboarder(options: forced).makeStoryboard(of: Fixture.url("video/counter.mp4"), in: exploded)
        } throws: { "\($0)".contains("storyboard.json") }
        #expect(FileManager.default.fileExists(atPath: exploded.appendingPathComponent("frames.json").path))
        #expect(CLIFiles.names(in: scratch) == ["frames", "out.storyboard"], "no staging directories left")
    }
}
