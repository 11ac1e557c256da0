// Grabs upright, scaled frames of a video: the first, one at a chosen time, the first non-black one, or the best posters.
import Foundation

/// What `Thumbnailer.writeThumbnail(of:to:)` wrote.
public struct ThumbnailResult: Sendable {
    /// The first (or only) file written.
    public var url: URL
    /// Size of the pictures written.
    public var width: Int
    public var height: Int
    /// Bytes written, all files together.
    public var bytes: Int
    /// Damage in the source that was decoded around (GIF input), and, with `count` over 1, a
    /// note when the clip had fewer distinct frames than asked for.
    public var warnings: [String] = []
    /// Every file written, best first (`options.outputs(for:)`, as many as there were picks).
    public var urls: [URL] = []
    /// With `pick == .best`: the chosen frames, in the order of `urls`; empty otherwise.
    public var picks: [FrameScore] = []
}

/// A poster `Thumbnailer.posters(of:)` chose: the frame and how it scored.
public struct Poster: Sendable {
    public var score: FrameScore
    /// The frame at `score.time`, upright and at the requested size.
    public var image: RGBAImage
}

/// Takes upright, scaled frames of a video, GIF or still image: the first, one at a time or
/// percentage (frame-accurate), the first that is not a black or white fade, or
/// (`pick == .best`) the best posters (`PosterPicker`).
public struct Thumbnailer: Sendable {
    public var options: ThumbnailOptions

    public init(options: ThumbnailOptions = ThumbnailOptions()) {
        self.options = options
    }

    /// Writes the thumbnail of `url` to `destination` as a PNG (RGBA when it has transparent
    /// pixels, RGB otherwise), or with `count` over 1 the posters to `options.outputs(for:)`:
    /// whole or not at all (every file is complete before the first appears), and within
    /// `options.limits.maxOutputBytes`.
    public func writeThumbnail(of url: URL, to destination: URL) throws -> ThumbnailResult {
        try options.validate()
        return try OutputJob.run(url, limits: options.limits, fingerprint: options.fingerprint, checkInput: false) { job in
            try writeThumbnail(of: url, to: destination, job: job)
        }
    }

    private func writeThumbnail(of url: URL, to destination: URL, job: OutputJob) throws -> ThumbnailResult {
        let limits = job.limits
        let names = options.outputs(for: destination)
        // One picture in memory at a time; the files wait, complete, to be renamed together.
        var files: [AtomicFile] = []
        var bytes = 0, size = (width: 0, height: 0)
        var fingerprint: Fingerprint?
        func write(_ image: RGBAImage) throws {
            if files.isEmpty {
                size = (image.width, image.height)
                // Asked for once the pixels are done: the hash has run beside the decode.
                fingerprint = try job.fingerprint()
            }
            let encoded: [UInt8]
            if options.format == .png {
                // Transparent pixels (a GIF's, a video's alpha) stay transparent; opaque pictures are RGB.
                encoded = try PNGWriter.encode(image, channels: image.isOpaque ? .rgb : .rgba, filter: .sub, fingerprint: fingerprint)
            } else {
                let encoder = try StillEncoder(format: options.format, quality: ThumbnailOptions.jpegQuality, path: url.path)
                let jpeg = try encoder.encode(image, path: url.path)
                encoded = fingerprint.map { $0.recording(inJPEG: jpeg) } ?? jpeg
            }
            let file = try AtomicFile(destination: names[files.count], budget: job.budget)
            try file.write(encoded)
            files.append(file)
            bytes += encoded.count
        }
        var warnings: [String] = []
        var taken: [FrameScore] = []
        // The best posters, or (an audio file, no video) its cover art: the one picture there is.
        let best = options.pick == .best ? try bestPicks(in: url, limits: limits) : nil
        if case .picks(let picks, let pickWarnings) = best {
            let takeWarnings: [String]
            do {
                (taken, takeWarnings) = try takePicks(picks, of: url, limits: limits) { try write($1) }
            } catch let error as ClipKitError where PosterPicker.isDecodeFailure(error) {
                let (image, fallbackWarnings) = try takeInstead(of: picks, url: url, limits: limits, failure: error)
                try write(image)
                warnings = pickWarnings + fallbackWarnings
                return try finish(files: files, names: names, size: size, bytes: bytes, warnings: warnings, taken: [])
            }
            warnings = pickWarnings + takeWarnings
            if taken.count < names.count {
                let few = picks.count < names.count ? ": only \(picks.count) distinct frame\(picks.count == 1 ? "" : "s") to pick from" : ""
                warnings.append("wrote \(taken.count) of the \(names.count) posters asked for\(few)")
            }
        } else {
            let image: RGBAImage
            (image, warnings) = try take(url, limits: limits)
            try write(image)
            if best != nil, names.count > 1 {
                warnings.append("wrote 1 of the \(names.count) posters asked for: the file's one picture is its cover art")
            }
        }
        return try finish(files: files, names: names, size: size, bytes: bytes, warnings: warnings, taken: taken)
    }

    /// Commits the files written and describes them.
    private func finish(files: [AtomicFile], names: [URL], size: (width: Int, height: Int), bytes: Int, warnings: [String],
                        taken: [FrameScore]) throws -> ThumbnailResult {
        try OutputCommit(main: files).commit()
        return ThumbnailResult(url: names[0], width: size.width, height: size.height, bytes: bytes, warnings: warnings,
                               urls: files.map(\.destination), picks: taken)
    }

    /// The thumbnail without `--pick best` (the first frame that is not blank), when not one of
    /// `picks` decodes again (`failure`, the first pick's error): timestamps out of order in a
    /// damaged file (a cluster put a frame at 65.5 s among frames under 1 s; seeking there finds
    /// nothing after it) pick a time no seek reaches. Said so in a warning; `failure` is thrown
    /// when that frame does not decode either.
    private func takeInstead(of picks: [FrameScore], url: URL, limits: Limits,
                             failure: ClipKitError) throws -> (image: RGBAImage, warnings: [String]) {
        var first = options
        first.pick = .first
        first.position = .first
        let taken: (image: RGBAImage, warnings: [String])
        do {
            taken = try Thumbnailer(options: first).take(url, limits: limits)
        } catch let error as ClipKitError where PosterPicker.isDecodeFailure(error) {
            throw failure
        }
        let time = picks.first.map { String(format: "%.3fs", $0.time) } ?? "?"
        return (taken.image, taken.warnings + ["the picked frame (at \(time)) could not be decoded again (\(failure.unnamed)); wrote the first frame instead"])
    }

    /// What `--pick best` chooses from: the picks, or the cover art of a file with no video
    /// (`take` reads it; a file without video or cover art fails there as it would here).
    private enum BestPicks {
        case picks([FrameScore], warnings: [String])
        case coverArt
    }

    private func bestPicks(in url: URL, limits: Limits, options: ThumbnailOptions? = nil) throws -> BestPicks {
        do {
            let (picks, warnings) = try PosterPicker(options: options ?? self.options).pick(in: url, limits: limits)
            return .picks(picks, warnings: warnings)
        } catch ClipKitError.noVideoStream {
            return .coverArt
        }
    }

    /// The thumbnail of `url`, upright and scaled (`pick == .best`: the best poster; an audio
    /// file's cover art, its one picture).
    public func thumbnail(of url: URL) throws -> RGBAImage {
        try options.validate()
        let limits = options.limits.started()
        guard options.pick == .best else { return try take(url, limits: limits).image }
        var single = options
        single.count = 1
        guard case .picks(let picks, _) = try bestPicks(in: url, limits: limits, options: single) else {
            return try take(url, limits: limits).image
        }
        do {
            return try take(url, limits: limits, at: picks[0].time).image
        } catch let error as ClipKitError where PosterPicker.isDecodeFailure(error) {
            return try takeInstead(of: picks, url: url, limits: limits, failure: error).image
        }
    }

    /// The best posters of `url` (up to `options.count`, best first) with how they scored,
    /// whatever `options.pick` says. Every picture is held in memory at once.
    public func posters(of url: URL) throws -> [Poster] {
        var best = options
        best.pick = .best
        try best.validate()
        let limits = options.limits.started()
        var posters: [Poster] = []
        _ = try takePicks(try PosterPicker(options: best).pick(in: url, limits: limits).picks, of: url, limits: limits) {
            posters.append(Poster(score: $0, image: $1))
        }
        return posters
    }

    /// Takes each pick's frame at the output size, exactly as `--at` would, and hands it to `body`.
    /// A pick whose frame cannot be decoded again (a seek the file does not allow, such as
    /// in a raw stream without timestamps) is left out with a warning; if none can be, the
    /// first failure is thrown.
    private func takePicks(_ picks: [FrameScore], of url: URL, limits: Limits,
                           _ body: (FrameScore, RGBAImage) throws -> Void) throws -> (taken: [FrameScore], warnings: [String]) {
        var taken: [FrameScore] = [], warnings: [String] = []
        var firstFailure: ClipKitError?
        for pick in picks {
            let image: RGBAImage
            do {
                image = try take(url, limits: limits, at: pick.time).image
            } catch let error as ClipKitError where PosterPicker.isDecodeFailure(error) {
                firstFailure = firstFailure ?? error
                warnings.append(String(format: "left out the pick at %.3fs, whose frame could not be decoded again: ", pick.time) + error.unnamed)
                continue
            }
            try body(pick, image)
            taken.append(pick)
        }
        if taken.isEmpty, let firstFailure { throw firstFailure }
        return (taken, warnings)
    }

    /// The frame at the position (or at `time`, a frame's exact presentation time), and the
    /// damage its source was decoded around.
    private func take(_ url: URL, limits: Limits, at time: Double? = nil) throws -> (image: RGBAImage, warnings: [String]) {
        do {
            return try takeFrame(url, limits: limits, at: time)
        } catch let error as ClipKitError {
            // `--at` a percentage of a duration the frames fall short of (a file cut short, a
            // header that overstates): the same percentage of the frames there are, said so.
            guard case .startPastEnd(_, let start, let end) = error, time == nil, end > 0, end <= start,
                  case .fraction(let fraction) = options.position else { throw error }
            // (The frame on screen there: 100% is the last one, shown until `end`.)
            let instead = min(fraction * end, max(end - 0.001, 0))
            let taken = try takeFrame(url, limits: limits, at: instead)
            let note = String(format: "the frames end at %.3fs, short of the duration the header states; --at %g%% took the frame at %.3fs",
                              end, (fraction * 100 * 1000).rounded() / 1000, instead)
            return (taken.image, taken.warnings + [note])
        }
    }

    private func takeFrame(_ url: URL, limits: Limits, at time: Double? = nil) throws -> (image: RGBAImage, warnings: [String]) {
        let reader = try VideoReader(url: url, limits: limits, fullProbe: false, defaultOptions: nil, coverArt: true)
        var read = FrameReadOptions(size: options.size)
        read.limits = limits
        if reader.info.isCoverArt {
            // An audio file's cover art: its one picture, whatever time was asked for.
            read.maxFrames = 1
            read.queueCapacity = 1
            try Self.checkMemory(for: reader.info, size: options.size, limits: limits, path: url.path)
            let frames = try reader.frames(options: read)
            return (try firstFrame(frames, path: url.path).image, frames.warnings)
        }
        read.start = try time ?? startTime(in: reader.info, path: url.path, limits: limits)
        try Self.checkMemory(for: reader.info, size: options.size, limits: limits, path: url.path)
        read.queueCapacity = 1
        guard let window = options.skipBlankWithin, time == nil else {
            read.maxFrames = 1
            let frames = try reader.frames(options: read)
            let frame = try firstFrame(frames, path: url.path)
            // Nothing decodes at the start (the frames before the first keyframe are damaged):
            // the first frame that does is shown, as `gif` shows it from 0, and said so.
            if read.start > 0 && frame.sourceTime > read.start + FrameSampler.epsilon {
                let late = String(format: "no frame decodes at %.3fs; took the first that does, at %.3fs", read.start, frame.sourceTime)
                return (frame.image, frames.warnings + [late])
            }
            return (frame.image, frames.warnings)
        }
        // Look at a few frames a second through the window; decoding skips the rest.
        read.end = read.start + max(window, 0.001)
        read.fps = 4
        let frames = try reader.frames(options: read)
        defer { frames.cancel() }
        var first: VideoFrame?
        while let frame = try frames.next() {
            if first == nil { first = frame }
            if !BlackFrameDetector.isBlank(frame.image) { return (frame.image, frames.warnings) }
        }
        guard let first else { throw ClipKitError.noFrames(path: url.path, reason: "nothing decoded") }
        return (first.image, frames.warnings)
    }

    /// Refuses a decode at `size` whose pictures cannot fit in `limits.maxMemory`: the decoder's
    /// converted and turned picture, one queued, the caller's (and a GIF's canvases).
    static func checkMemory(for info: VideoInfo, size: FrameSize, limits: Limits, path: String) throws {
        let output = size.resolve(width: info.width, height: info.height)
        let gifCanvases = info.container == "gif" ? 2 * info.width * info.height * 4 : 0
        try limits.checkMemory(pictures: 4, of: output.width * output.height * 4 + gifCanvases / 4, what: "pictures", path: path)
    }

    private func firstFrame(_ frames: FrameSequence, path: String) throws -> VideoFrame {
        defer { frames.cancel() }
        guard let frame = try frames.next() else {
            throw ClipKitError.noFrames(path: path, reason: "nothing decoded")
        }
        // The end message follows the one frame asked for; it carries the damage report.
        _ = try? frames.next()
        return frame
    }

    private func startTime(in info: VideoInfo, path: String, limits: Limits) throws -> Double {
        switch options.position {
        case .first:
            return 0
        case .seconds(let seconds):
            guard seconds >= 0, seconds.isFinite else {
                throw ClipKitError.invalidOption(name: "--at", reason: "must be zero or more seconds")
            }
            if let duration = info.duration, seconds >= duration {
                throw ClipKitError.startPastEnd(path: path, start: seconds, duration: duration)
            }
            return seconds
        case .fraction(let fraction):
            guard (0...1).contains(fraction) else {
                throw ClipKitError.invalidOption(name: "--at", reason: "a percentage must be between 0% and 100%")
            }
            // No length in the header (WebM without Duration, fragmented MP4): the timestamps tell it.
            guard let duration = try StreamTiming.clipDuration(of: URL(fileURLWithPath: path), info: info, limits: limits) else {
                throw ClipKitError.invalidOption(name: "--at", reason: "\(path) has no known duration; give a time instead of a percentage")
            }
            // 100% is the last frame, not past the end.
            let step = 1 / (info.frameRate ?? 25)
            return min(fraction * duration, max(duration - step, 0))
        }
    }
}

extension Thumbnailer {
    /// `thumbnail(of:)` without blocking the caller's task.
    public func thumbnail(of url: URL) async throws -> RGBAImage {
        let thumbnailer = self
        return try await runOnThread("ck.thumbnail") { try thumbnailer.thumbnail(of: url) }
    }

    /// `posters(of:)` without blocking the caller's task.
    public func posters(of url: URL) async throws -> [Poster] {
        let thumbnailer = self
        return try await runOnThread("ck.posters") { try thumbnailer.posters(of: url) }
    }
}
