// `explode`: a GIF or video to one RGBA PNG per displayed frame plus frames.json, written whole or not at all.
import Foundation

/// Explodes GIFs (composited as browsers show them) and videos (upright frames) into PNG frames.
///
/// Frames are built in a hidden staging directory beside the output and renamed into place at
/// the end, so on error nothing is left behind. Decoding runs on the caller's thread while two
/// stage threads encode and write PNGs, one frame waiting for each (one thread with two, or the
/// caller's thread, when `--max-memory` leaves no room for that; see `FrameWriterStage.layout`).
public struct Exploder: Sendable {
    public static let manifestName = "frames.json"

    /// What one explode wrote.
    public struct Result: Sendable {
        public var directory: URL
        public var manifest: FramesManifest
        /// Damage decoded around, and options that did not apply; the output is still complete.
        public var warnings: [String]
    }

    public var options: ExplodeOptions

    public init(options: ExplodeOptions = ExplodeOptions()) {
        self.options = options
    }

    /// True when the file starts with a GIF signature, whatever its name.
    public static func isGIF(_ url: URL) -> Bool { GIFFrameSource.isGIF(url) }

    /// Writes `frame_NNNN.png` for each (selected) frame of `input` and `frames.json` into
    /// `directory`.
    public func explode(_ input: URL, into directory: URL) throws -> Result {
        try options.validate()
        return try OutputJob.run(input, limits: options.limits, fingerprint: options.fingerprint) { job in
            do {
                if Self.isGIF(input) { return try explodeGIF(input, into: directory, job: job) }
                return try explodeVideo(input, into: directory, job: job)
            } catch {
                // Name the output the user asked for, not the hidden directory it was being built in.
                throw StagingDirectory.userFacing(error, target: directory)
            }
        }
    }

    // MARK: - GIF

    private func explodeGIF(_ input: URL, into directory: URL, job: OutputJob) throws -> Result {
        let limits = job.limits
        let animation = try GIFAnimation(url: input, limits: limits)
        let frameCount = animation.scan.frames.count
        let selected = options.frames.map { selection in (0..<frameCount).filter { selection.contains($0) }.count } ?? frameCount
        try limits.checkFrames(selected, path: input.path)
        try checkSelection(frameCount: frameCount, input: input)
        let lastWanted = options.frames?.last ?? frameCount - 1

        // The canvas, and a saved copy of it for restore-previous disposal.
        let canvasBytes = animation.canvasWidth * animation.canvasHeight * 4
        try limits.checkMemory(pictures: 2, of: canvasBytes, what: "GIF canvases", path: input.path)
        let budget = job.budget
        let staging = try StagingDirectory(for: directory, force: options.force, inputs: [input])
        let pipeline = Pipeline()
        // The writers are joined before the staging directory can go (and take their files with it).
        defer { withExtendedLifetime(staging) { pipeline.stop() } }
        // The caller holds the canvas and its saved copy.
        let layout = FrameWriterStage.layout(pictureBytes: canvasBytes, callerPictures: 2, limits: limits)
        var writer = FrameWriterStage(pipeline: pipeline, layout: layout, directory: staging.url, filter: .none, budget: budget,
                                      deadline: limits.deadline, source: input.path)
        let digits = Self.digits(frameCount: frameCount)
        var entries: [FramesManifest.Frame] = []
        while let frame = try animation.next() {
            if frame.index > lastWanted { break }
            guard options.frames?.contains(frame.index) ?? true else { continue }
            let name = Self.fileName(frame.index, digits: digits)
            try writer.write(frame.canvas, name: name)
            let shown = frame.image
            entries.append(FramesManifest.Frame(
                file: name, delayCs: frame.delay, left: shown.left, top: shown.top, width: shown.width, height: shown.height,
                disposal: shown.disposal, transparentIndex: shown.transparentIndex, interlaced: shown.interlaced,
                localPalette: shown.localPalette != nil))
        }
        // Reading on to the trailer reports damage after the last image (a missing trailer).
        if lastWanted == frameCount - 1 { try animation.readToEnd() }
        try writer.finish()
        var warnings = animation.warnings
        if options.fps != nil { warnings.append("--fps applies to videos only; the GIF's own frames were written") }
        var manifest = FramesManifest(source: input.lastPathComponent,
                                      canvas: .init(width: animation.canvasWidth, height: animation.canvasHeight),
                                      loopCount: animation.loopCount, frames: entries)
        manifest.fingerprint = try job.fingerprint()?.text
        try manifest.write(to: staging.url.appendingPathComponent(Self.manifestName), budget: budget)
        try OutputCommit(main: [staging]).commit()
        return Result(directory: directory, manifest: manifest, warnings: warnings)
    }

    // MARK: - Video

    private func explodeVideo(_ input: URL, into directory: URL, job: OutputJob) throws -> Result {
        let limits = job.limits
        let reader = try VideoReader(url: input, limits: limits, fullProbe: true)
        var readOptions = FrameReadOptions(fps: options.fps)
        readOptions.limits = limits
        // Full-size frames: the decode thread holds one (two while turning it upright), the
        // queue some, the caller one. Large ones go one at a time, written on this thread.
        let frameBytes = reader.info.width * reader.info.height * 4
        try limits.checkMemory(pictures: 4, of: frameBytes, what: "video frames", path: input.path)
        let layout = FrameWriterStage.layout(pictureBytes: frameBytes, callerPictures: 6, limits: limits)
        readOptions.queueCapacity = layout != nil ? 3 : 1
        let sequence = try reader.frames(options: readOptions)
        defer { sequence.cancel() }

        let budget = job.budget
        let staging = try StagingDirectory(for: directory, force: options.force, inputs: [input])
        let pipeline = Pipeline()
        defer { withExtendedLifetime(staging) { pipeline.stop() } }
        var writer = FrameWriterStage(pipeline: pipeline, layout: layout, directory: staging.url, filter: .sub, budget: budget,
                                      deadline: limits.deadline, source: input.path)
        // The count is known only at the end; name by the estimate and rename if it was short.
        var digits = Self.digits(frameCount: sequence.expectedCount ?? 1)
        let lastWanted = options.frames?.last
        var times: [Double] = []
        var written: [(number: Int, width: Int, height: Int)] = []
        var endTime: Double?
        while let frame = try sequence.next() {
            let number = times.count
            times.append(frame.time)
            if let lastWanted, number > lastWanted {
                // This frame's time ends the last wanted one; nothing later is needed.
                endTime = frame.time
                break
            }
            guard options.frames?.contains(number) ?? true else { continue }
            try limits.checkFrames(written.count + 1, path: input.path)
            try writer.write(frame.image, name: Self.fileName(number, digits: digits))
            written.append((number, frame.image.width, frame.image.height))
        }
        try writer.finish()
        guard !times.isEmpty else { throw ClipKitError.noFrames(path: input.path, reason: "the video decoded to no frames") }
        let frameCount = endTime == nil ? times.count : times.count - 1
        try checkSelection(frameCount: frameCount, input: input)
        let duration = endTime ?? max(sequence.duration ?? 0, times.last!)
        let delays = Delays.centiseconds(times: Array(times.prefix(frameCount)), duration: duration)

        let needed = Self.digits(frameCount: endTime == nil ? frameCount : max(frameCount, sequence.expectedCount ?? 0))
        if needed != digits {
            for entry in written {
                let from = staging.url.appendingPathComponent(Self.fileName(entry.number, digits: digits)).path
                let to = staging.url.appendingPathComponent(Self.fileName(entry.number, digits: needed)).path
                guard rename(FileSystemPath.cString(from), FileSystemPath.cString(to)) == 0 else {
                    throw ClipKitError.outputFailed(path: to, reason: String(cString: strerror(errno)))
                }
            }
            digits = needed
        }
        let entries = written.map { entry in
            FramesManifest.Frame(file: Self.fileName(entry.number, digits: digits), delayCs: delays[entry.number],
                                 width: entry.width, height: entry.height)
        }
        let first = written.first ?? (0, reader.info.codedWidth, reader.info.codedHeight)
        // An animated PNG's own loop; a video's frames loop forever, as its GIF does.
        let loopCount = GIFOptions.sourceLoop(of: input, limits: job.limits).map(\.count) ?? 0
        var manifest = FramesManifest(source: input.lastPathComponent, canvas: .init(width: first.width, height: first.height),
                                      loopCount: loopCount, frames: entries)
        manifest.fingerprint = try job.fingerprint()?.text
        try manifest.write(to: staging.url.appendingPathComponent(Self.manifestName), budget: budget)
        try OutputCommit(main: [staging]).commit()
        return Result(directory: directory, manifest: manifest, warnings: sequence.warnings)
    }

    // MARK: - Helpers

    private func checkSelection(frameCount: Int, input: URL) throws {
        guard let selection = options.frames, selection.last >= frameCount else { return }
        throw ClipKitError.noFrames(path: input.path,
                                    reason: "--frames asks for frame \(selection.last), but there are only \(frameCount) (0 to \(frameCount - 1))")
    }

    /// At least 4 digits, more when the last frame number needs them.
    static func digits(frameCount: Int) -> Int {
        max(4, String(max(frameCount - 1, 0)).count)
    }

    static func fileName(_ number: Int, digits: Int) -> String {
        let text = String(number)
        return "frame_" + String(repeating: "0", count: max(0, digits - text.count)) + text + ".png"
    }
}
