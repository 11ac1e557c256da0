// `explode`: a GIF or video to one RGBA PNG per displayed frame plus frames.json, written whole or not at all.
import Dispatch
import Foundation

/// What `Exploder` writes and how.
public struct ExplodeOptions: Sendable {
    /// Which frames to write (all when nil). Compositing still runs over every earlier frame.
    public var frames: FrameSelection?
    /// Frames per second to sample a video at; nil takes every frame. Ignored for GIFs.
    public var fps: Double?
    /// Replace an existing, non-empty output directory of an earlier explode.
    public var force = false
    /// Pixels, frames and time allowed for one input.
    public var limits = Limits()
    /// Largest canvas or image accepted, in pixels, checked before anything is allocated.
    public var maxPixels: Int {
        get { limits.maxPixels }
        set { limits.maxPixels = newValue }
    }

    public init(frames: FrameSelection? = nil, fps: Double? = nil, force: Bool = false, maxPixels: Int = 100_000_000) {
        self.frames = frames
        self.fps = fps
        self.force = force
        self.maxPixels = maxPixels
    }
}

/// Frame numbers from `--frames 0,5-9` (counting from 0).
public struct FrameSelection: Sendable, Equatable {
    public let ranges: [ClosedRange<Int>]

    public init(_ ranges: [ClosedRange<Int>]) {
        self.ranges = ranges
    }

    /// Parses `0,5-9`; throws a usage error naming `option` otherwise.
    public init(parsing text: String, option: String = "--frames") throws {
        var ranges: [ClosedRange<Int>] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            let numbers = ends.compactMap { $0.allSatisfy(\.isASCII) ? Int($0) : nil }
            guard (1...2).contains(ends.count), numbers.count == ends.count, numbers.allSatisfy({ $0 >= 0 }),
                  numbers.first! <= numbers.last! else {
                throw ClipKitError.invalidOption(name: option, reason: "'\(text)' is not a list of frames such as 0,5-9 (frames count from 0)")
            }
            ranges.append(numbers.first!...numbers.last!)
        }
        self.ranges = ranges
    }

    public func contains(_ frame: Int) -> Bool { ranges.contains { $0.contains(frame) } }

    /// The highest frame asked for.
    public var last: Int { ranges.map(\.upperBound).max() ?? 0 }
}

/// Explodes GIFs (composited as browsers show them) and videos (upright frames) into PNG frames.
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

    /// The output directory for `input`: `-o` itself with one input, `NAME.frames` inside `-o`
    /// with several, `./NAME.frames` without `-o`.
    public static func directory(for input: URL, output: String?, inputCount: Int) -> URL {
        let name = input.deletingPathExtension().lastPathComponent + ".frames"
        guard let output else {
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(name, isDirectory: true)
        }
        let given = URL(fileURLWithPath: output, isDirectory: true)
        return inputCount > 1 ? given.appendingPathComponent(name, isDirectory: true) : given
    }

    /// True when the file starts with a GIF signature, whatever its name.
    public static func isGIF(_ url: URL) -> Bool {
        // Never open what is not a regular file: reading a FIFO would block.
        guard (try? InputFile.check(url.path)) != nil, let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 6)) ?? Data()
        return head == Data("GIF87a".utf8) || head == Data("GIF89a".utf8)
    }

    /// Writes `frame_NNNN.png` for each (selected) frame of `input` and `frames.json` into
    /// `directory`. Everything is built in a hidden directory beside it and renamed into place
    /// at the end, so on error nothing is left behind.
    public func explode(_ input: URL, into directory: URL) throws -> Result {
        if let fps = options.fps, !(fps > 0 && fps.isFinite) {
            throw ClipKitError.invalidOption(name: "--fps", reason: "must be a positive number, got \(fps)")
        }
        try InputFile.check(input.path)
        do {
            if Self.isGIF(input) {
                return try explodeGIF(input, into: directory)
            }
            return try explodeVideo(input, into: directory)
        } catch ClipKitError.outputFailed(let path, let reason) where path.contains("/.\(directory.lastPathComponent).clipkit-") {
            // Name the output the user asked for, not the hidden directory it was being built in.
            let file = URL(fileURLWithPath: path).lastPathComponent
            let isStagingItself = file.hasPrefix(".") && file.contains(".clipkit-")
            throw ClipKitError.outputFailed(path: isStagingItself ? directory.path : directory.appendingPathComponent(file).path, reason: reason)
        }
    }

    // MARK: - GIF

    private func explodeGIF(_ input: URL, into directory: URL) throws -> Result {
        let decoder = try GIFDecoder(url: input, maxPixels: options.maxPixels)
        // A quick first pass over the control blocks: which images form each displayed frame
        // (and so how many frames there are) must be known before the first one is written.
        let scan = try GIFDecoder(url: input, maxPixels: options.maxPixels)
        let delays = try scan.remainingDelays()
        let groups = Compositor.displayedFrames(delays: delays)
        guard !groups.isEmpty else { throw ClipKitError.noFrames(path: input.path, reason: "the GIF has no images") }
        try options.limits.checkFrames(options.frames.map { _ in (0..<groups.count).filter { options.frames!.contains($0) }.count } ?? groups.count,
                                       path: input.path)
        let deadline = options.limits.deadline()
        try checkSelection(frameCount: groups.count, input: input)
        let lastWanted = options.frames?.last ?? groups.count - 1

        let staging = try StagingDirectory(for: directory, force: options.force)
        let writer = FrameWriter(directory: staging.url, filter: .none)
        let digits = Self.digits(frameCount: groups.count)
        var compositor = Compositor(width: decoder.canvasWidth, height: decoder.canvasHeight, globalPalette: decoder.globalPalette)
        var entries: [FramesManifest.Frame] = []
        do {
            for (number, images) in groups.enumerated() where number <= lastWanted {
                try deadline.check(input.path)
                var shown: GIFFrame?
                var delay = 0
                for _ in images {
                    guard let image = try decoder.next() else { break }
                    compositor.draw(image, decodedPixels: decoder.decodedPixelCount)
                    delay += image.delay
                    shown = image
                }
                guard let shown else { break }
                guard options.frames?.contains(number) ?? true else { continue }
                let name = Self.fileName(number, digits: digits)
                try writer.write(compositor.canvas, name: name)
                entries.append(FramesManifest.Frame(
                    file: name, delayCs: delay, left: shown.left, top: shown.top, width: shown.width, height: shown.height,
                    disposal: shown.disposal, transparentIndex: shown.transparentIndex, interlaced: shown.interlaced,
                    localPalette: shown.localPalette != nil))
            }
            // Reading on to the trailer reports damage after the last image (a missing trailer).
            if lastWanted == groups.count - 1 { _ = try decoder.next() }
            try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
        var warnings = decoder.warnings
        if options.fps != nil { warnings.append("--fps applies to videos only; the GIF's own frames were written") }
        let manifest = FramesManifest(source: input.lastPathComponent,
                                      canvas: .init(width: decoder.canvasWidth, height: decoder.canvasHeight),
                                      loopCount: scan.loopCount, frames: entries)
        try manifest.write(to: staging.url.appendingPathComponent(Self.manifestName))
        try staging.commit()
        return Result(directory: directory, manifest: manifest, warnings: warnings)
    }

    // MARK: - Video

    private func explodeVideo(_ input: URL, into directory: URL) throws -> Result {
        let reader = try VideoReader(url: input, maxPixels: options.maxPixels)
        var readOptions = FrameReadOptions(fps: options.fps)
        readOptions.maxPixels = options.maxPixels
        readOptions.deadline = options.limits.deadline()
        readOptions.maxDuration = options.limits.maxDuration
        let sequence = try reader.frames(options: readOptions)
        defer { sequence.cancel() }

        let staging = try StagingDirectory(for: directory, force: options.force)
        let writer = FrameWriter(directory: staging.url, filter: .sub)
        // The count is known only at the end; name by the estimate and rename if it was short.
        var digits = Self.digits(frameCount: sequence.expectedCount ?? 1)
        let lastWanted = options.frames?.last
        var times: [Double] = []
        var written: [(number: Int, width: Int, height: Int)] = []
        var endTime: Double?
        do {
            while let frame = try sequence.next() {
                let number = times.count
                times.append(frame.time)
                if let lastWanted, number > lastWanted {
                    // This frame's time ends the last wanted one; nothing later is needed.
                    endTime = frame.time
                    break
                }
                guard options.frames?.contains(number) ?? true else { continue }
                try options.limits.checkFrames(written.count + 1, path: input.path)
                try writer.write(frame.image, name: Self.fileName(number, digits: digits))
                written.append((number, frame.image.width, frame.image.height))
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
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
                guard rename(from, to) == 0 else {
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
        let manifest = FramesManifest(source: input.lastPathComponent, canvas: .init(width: first.width, height: first.height),
                                      loopCount: nil, frames: entries)
        try manifest.write(to: staging.url.appendingPathComponent(Self.manifestName))
        try staging.commit()
        return Result(directory: directory, manifest: manifest, warnings: [])
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

/// Encodes and writes PNGs on all cores while the caller composites or decodes the next frame.
/// At most two frames per core wait, so memory stays bounded.
private final class FrameWriter: @unchecked Sendable {
    private let directory: URL
    private let queue = DispatchQueue(label: "clipkit.explode.png", attributes: .concurrent)
    private let group = DispatchGroup()
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var failure: Error?
    private var abandoned = false

    private let filter: PNGWriter.Filter

    init(directory: URL, filter: PNGWriter.Filter) {
        self.directory = directory
        self.filter = filter
        slots = DispatchSemaphore(value: 2 * max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Queues `image` to be written as `name`; throws an earlier write's error.
    func write(_ image: RGBAImage, name: String) throws {
        if let failure = currentFailure() { throw failure }
        slots.wait()
        let url = directory.appendingPathComponent(name)
        queue.async(group: group) { [self] in
            defer { slots.signal() }
            if isAbandoned() { return }
            do {
                try PNGWriter.write(image, to: url, channels: .rgba, filter: filter)
            } catch {
                lock.lock()
                if failure == nil { failure = error }
                lock.unlock()
            }
        }
    }

    /// Waits for every queued write; throws the first error.
    func finish() throws {
        group.wait()
        if let failure = currentFailure() { throw failure }
    }

    /// Skips writes not yet started and waits for the running ones, so the directory can go.
    func abandon() {
        lock.lock()
        abandoned = true
        lock.unlock()
        group.wait()
    }

    private func currentFailure() -> Error? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    private func isAbandoned() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return abandoned
    }
}

/// A hidden directory beside the output that becomes the output on `commit()`; removed with
/// everything in it if dropped before that.
private final class StagingDirectory {
    let url: URL
    private let target: URL
    private var committed = false

    /// Refuses a `target` that is a file, or a non-empty directory unless `force` is set and it
    /// holds an earlier explode's frames.json (so `--force` cannot wipe an unrelated directory).
    init(for target: URL, force: Bool) throws {
        self.target = target
        let fileManager = FileManager.default
        let path = target.path
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ClipKitError.outputFailed(path: path, reason: "exists and is not a directory")
            }
            let contents = (try? fileManager.contentsOfDirectory(atPath: path)) ?? []
            if !contents.isEmpty {
                guard force else {
                    throw ClipKitError.outputFailed(path: path, reason: "directory is not empty (--force replaces an earlier explode's output)")
                }
                guard contents.contains(Exploder.manifestName) else {
                    throw ClipKitError.outputFailed(path: path, reason: "directory is not empty and holds no \(Exploder.manifestName); --force only replaces an earlier explode's output")
                }
            }
        }
        let parent = target.deletingLastPathComponent()
        do {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw ClipKitError.outputFailed(path: parent.path, reason: "cannot create directory")
        }
        url = try Self.makeTemporary(in: parent, name: target.lastPathComponent, target: path)
    }

    deinit {
        if !committed { try? FileManager.default.removeItem(at: url) }
        TempFileRegistry.shared.removeDirectory(url.path)
    }

    /// Puts the staged directory where the target is, replacing an empty or (checked in `init`)
    /// earlier output directory.
    func commit() throws {
        let path = target.path
        if rename(url.path, path) != 0 {
            guard errno == ENOTEMPTY || errno == EEXIST else {
                throw ClipKitError.outputFailed(path: path, reason: String(cString: strerror(errno)))
            }
            // rename(2) replaces only empty directories: move the old one aside first.
            let old = try Self.makeTemporary(in: target.deletingLastPathComponent(), name: target.lastPathComponent + ".old", target: path)
            guard rename(path, old.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: old)
                throw ClipKitError.outputFailed(path: path, reason: reason)
            }
            guard rename(url.path, path) == 0 else {
                let reason = String(cString: strerror(errno))
                _ = rename(old.path, path)
                throw ClipKitError.outputFailed(path: path, reason: reason)
            }
            try? FileManager.default.removeItem(at: old)
            TempFileRegistry.shared.removeDirectory(old.path)
        }
        committed = true
        TempFileRegistry.shared.removeDirectory(url.path)
    }

    private static func makeTemporary(in parent: URL, name: String, target: String) throws -> URL {
        // Registered so that SIGINT/SIGTERM removes it with everything written so far.
        guard let made = TempFileRegistry.shared.makeDirectory(template: parent.path + "/." + name + ".clipkit-XXXXXX") else {
            throw ClipKitError.outputFailed(path: target, reason: String(cString: strerror(errno)))
        }
        return URL(fileURLWithPath: made, isDirectory: true)
    }
}
