// `storyboard`: a video to sprite sheets of evenly spaced thumbnails, a WebVTT track mapping times to them, and a manifest.
import Foundation

/// Makes the scrub-bar previews video players show: tiles of a clip taken at even times, laid out
/// on sprite sheets (JPEG, WebP or PNG), a WebVTT file whose cues map each time range to its tile
/// (`sheet_0.jpg#xywh=x,y,w,h`) and a `storyboard.json` manifest.
///
/// ```swift
/// var options = StoryboardOptions(spacing: .interval(5))
/// let result = try Storyboarder(options: options).makeStoryboard(of: clipURL, in: outputDirectory)
/// print(result.manifest.tiles.count, result.manifest.sheets.map(\.file))
/// ```
///
/// The directory is built hidden beside its final place and renamed there when every file is
/// complete, so a failure leaves nothing behind. Decoding runs on a joined decode thread; this
/// call's thread places tiles and encodes each sheet when it is full, so memory is one sheet,
/// a few tiles and the decoder's frames, whatever the clip's length.
public struct Storyboarder: Sendable {
    /// What one call wrote.
    public struct Result: Sendable {
        public var directory: URL
        public var manifest: StoryboardManifest
        /// Bytes written, all files together.
        public var bytes: Int
        /// Damage decoded around; the output is still complete.
        public var warnings: [String]
    }

    public var options: StoryboardOptions

    public init(options: StoryboardOptions = StoryboardOptions()) {
        self.options = options
    }

    /// Writes the storyboard of `input` (a video, GIF or still image) into `directory`: sheets,
    /// `storyboard.vtt` and `storyboard.json`. An existing `directory` must be empty, or an
    /// earlier storyboard's output (replaced when out of date, or with `options.force`).
    public func makeStoryboard(of input: URL, in directory: URL) throws -> Result {
        try options.validate()
        return try OutputJob.run(input, limits: options.limits, fingerprint: options.fingerprint) { job in
            do {
                return try make(input, in: directory, job: job)
            } catch {
                // Name the output the user asked for, not the hidden directory it was being built in.
                throw StagingDirectory.userFacing(error, target: directory)
            }
        }
    }

    /// True for a source with a single picture: a PNG or JPEG file, a one-frame GIF, a title
    /// card over audio. It gets one tile for all of its length.
    static func isStill(_ info: VideoInfo) -> Bool {
        info.frameCount == 1 || info.container == "image2" || info.container.hasSuffix("_pipe")
    }

    private func make(_ input: URL, in directory: URL, job: OutputJob) throws -> Result {
        let limits = job.limits
        let path = input.path
        // The encoder first: a missing one is reported before anything is decoded.
        let encoder = options.format == .png ? nil : try StillEncoder(format: options.format, quality: options.quality, path: path)
        // The tiles' size is fixed before any is decoded: from the pictures' size and aspect ratio.
        let reader = try VideoReader(url: input, limits: limits, fullProbe: false, defaultOptions: nil, geometryAtOpen: true)
        let info = reader.info
        let tile = options.tileSize.resolve(width: info.width, height: info.height)
        let layout = try Self.layout(tile: tile, options: options, path: path)
        let sheetSize = layout.fullSheetSize
        // The sheet and its encoded copy; the decoder's tile, the queued ones and the caller's.
        let (sheetBytes, overflow) = sheetSize.width.multipliedReportingOverflow(by: sheetSize.height * 4)
        try limits.checkMemory(pictures: 2, of: overflow ? Int.max / 2 : sheetBytes + 2 * tile.width * tile.height * 4,
                               what: "sprite sheets", path: path)

        let still = Self.isStill(info)
        let duration = still ? info.duration : try StreamTiming.clipDuration(of: input, info: info, limits: limits)
        // A clip longer than --max-duration is refused before anything is decoded.
        if let duration, !still { try limits.checkSourceSpan(duration, path: path) }
        let schedule = still || (duration ?? 0) <= 0
            ? TileSchedule.single(duration: duration ?? 0)
            : try TileSchedule.plan(options.spacing, duration: duration!, path: path)
        try limits.checkFrames(schedule.count, path: path)

        let staging = try StagingDirectory(for: directory, force: options.force, inputs: [input], kind: .storyboard)
        let budget = job.budget
        var writer = SpriteSheetWriter(layout: layout, format: options.format, encoder: encoder, plannedTiles: schedule.count,
                                       directory: staging.url, budget: budget, path: path)
        var tiles: [StoryboardManifest.Tile] = []
        let decoded = try decodeTiles(of: reader, schedule: schedule, tileSize: tile, still: still, limits: limits) { frame in
            try limits.checkDeadline(path)
            let place = try writer.add(frame.image)
            tiles.append(StoryboardManifest.Tile(startMs: schedule.startMs(tiles.count), endMs: 0,
                                                 frameMs: TileSchedule.milliseconds(frame.sourceTime),
                                                 sheet: place.sheet, x: place.x, y: place.y))
        }
        guard !tiles.isEmpty else { throw ClipKitError.noFrames(path: path, reason: "the video decoded to no frames") }
        try writer.finish()

        // Each cue ends where the next starts; the last at the end of the clip (of what decoded,
        // when the frames stopped before the planned tiles did).
        var durationMs = schedule.durationMs
        if let end = decoded.end { durationMs = TileSchedule.milliseconds(end) }
        durationMs = max(durationMs, tiles[tiles.count - 1].startMs + 1)
        for i in tiles.indices { tiles[i].endMs = i + 1 < tiles.count ? tiles[i + 1].startMs : durationMs }

        let cues = tiles.map { tile in
            WebVTT.Cue(startMs: tile.startMs, endMs: tile.endMs,
                       payload: WebVTT.thumbnail(file: writer.sheets[tile.sheet].file, x: tile.x, y: tile.y,
                                                 width: layout.tileWidth, height: layout.tileHeight))
        }
        let vtt = Array(WebVTT.text(cues).utf8)
        try AtomicFile.write(vtt, to: staging.url.appendingPathComponent(StoryboardManifest.vttName), budget: budget)
        var manifest = StoryboardManifest(
            format: StoryboardManifest.currentFormat, fingerprint: try job.fingerprint()?.text, source: input.lastPathComponent,
            durationMs: durationMs, interval: schedule.interval, keyframes: options.keyframesOnly && !still,
            tile: .init(width: layout.tileWidth, height: layout.tileHeight), columns: layout.columns,
            tilesPerSheet: layout.tilesPerSheet, imageFormat: options.format.fileExtension, vtt: StoryboardManifest.vttName,
            sheets: writer.sheets, tiles: tiles)
        if still { manifest.interval = Double(durationMs) / 1000 }
        let json = Array(manifest.jsonText().utf8)
        try AtomicFile.write(json, to: staging.url.appendingPathComponent(StoryboardManifest.fileName), budget: budget)
        try OutputCommit(main: [staging]).commit()
        return Result(directory: directory, manifest: manifest, bytes: writer.bytes + vtt.count + json.count, warnings: decoded.warnings)
    }

    /// The sheets' layout for this input's tiles: `options.columns` to a row, as many rows as
    /// `options.tilesPerSheet` allows and the format can store (`StoryboardLayout.fitting`).
    /// The tile size comes from the input, so a layout that cannot fit is this input's failure
    /// (exit 1, naming it), whose reason names the option to change.
    static func layout(tile: (width: Int, height: Int), options: StoryboardOptions, path: String) throws -> StoryboardLayout {
        let limit = options.format.maxDimension, format = options.format.rawValue
        if let layout = StoryboardLayout.fitting(tileWidth: tile.width, tileHeight: tile.height, columns: options.columns,
                                                 tilesPerSheet: options.tilesPerSheet, maxDimension: limit) {
            return layout
        }
        let size = "\(tile.width)x\(tile.height)"
        guard tile.width <= limit && tile.height <= limit else {
            let box = "\(min(tile.width, limit))x\(min(tile.height, limit))"
            throw ClipKitError.cannotFit(path: path, reason: "tiles of \(size) pixels are larger than \(format)'s \(limit)-pixel limit "
                                         + "for a sheet side; give a smaller --tile (a box such as --tile \(box)) or another --format")
        }
        let columns = min(options.columns, options.tilesPerSheet)
        throw ClipKitError.cannotFit(path: path, reason: "rows of \(columns) tiles of \(size) pixels are \(columns * tile.width) pixels "
                                     + "wide, over \(format)'s \(limit)-pixel limit; use at most \(limit / tile.width) --columns or a smaller --tile")
    }

    /// Decodes the frames `schedule` asks for, scaled to `tileSize`, handing each tile's frame to
    /// `add` in tile order: a still's one picture; with `keyframesOnly`, the nearest keyframe of
    /// each tile time; otherwise the frame on screen at each, sampled by timestamp (seeking over
    /// what no tile shows). Returns the end of the decoded clip when its frames ran out before
    /// every tile was filled (nil when all were), and the damage decoded around.
    private func decodeTiles(of reader: VideoReader, schedule: TileSchedule, tileSize: (width: Int, height: Int), still: Bool,
                             limits: Limits, add: (VideoFrame) throws -> Void) throws -> (end: Double?, warnings: [String]) {
        let path = reader.url.path
        var read = FrameReadOptions(size: .exact(width: tileSize.width, height: tileSize.height))
        read.limits = limits
        read.queueCapacity = 2
        if still {
            read.maxFrames = 1
            let frames = try reader.frames(options: read)
            defer { frames.cancel() }
            guard let frame = try frames.next() else { throw ClipKitError.noFrames(path: path, reason: "nothing decoded") }
            try add(frame)
            // The end message follows: it carries the picture's length and the damage report.
            _ = try frames.next()
            return (frames.duration, frames.warnings)
        }
        if options.keyframesOnly {
            read.keyframesOnly = true
            let frames = try reader.frames(options: read)
            defer { frames.cancel() }
            var picker = NearestKeyframePicker(schedule: schedule)
            var added = 0
            while !picker.isDone, let frame = try frames.next() {
                for (_, chosen) in picker.offer(frame) { try add(chosen); added += 1 }
            }
            // Once every tile is decided the rest of the clip is not decoded: its end is the planned one.
            guard !picker.isDone else { return (nil, frames.warnings) }
            let end = frames.duration ?? schedule.time(schedule.count)
            for (_, chosen) in picker.finish(end: end) { try add(chosen); added += 1 }
            return (added < schedule.count ? end : nil, frames.warnings)
        }
        read.fps = 1 / schedule.interval
        read.end = schedule.time(schedule.count)
        read.maxFrames = schedule.count
        read.skipsBetweenTicks = true
        let frames = try reader.frames(options: read)
        defer { frames.cancel() }
        var added = 0
        while let frame = try frames.next() {
            guard frame.index == added else {
                throw ClipKitError.internalFailure(path: path, reason: "tile \(frame.index) came out of order")
            }
            try add(frame)
            added += 1
        }
        return (added < schedule.count ? frames.duration : nil, frames.warnings)
    }
}

extension Storyboarder {
    /// `makeStoryboard(of:in:)` without blocking the caller's task (on one joined thread).
    public func makeStoryboard(of input: URL, in directory: URL) async throws -> Result {
        let storyboarder = self
        return try await runOnThread("ck.storyboard") { try storyboarder.makeStoryboard(of: input, in: directory) }
    }
}
