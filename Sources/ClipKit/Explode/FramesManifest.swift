// frames.json: the timings and geometry of exploded frames, written by `explode` and read back to rebuild a GIF.
import Foundation

/// The manifest `clipkit explode` writes beside the frame PNGs.
public struct FramesManifest: Codable, Equatable, Sendable {
    public struct Canvas: Codable, Equatable, Sendable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// One written frame. For a GIF frame built from several zero-delay images, the geometry
    /// and flags describe the last image (the one with the delay) and the delay is their sum.
    public struct Frame: Codable, Equatable, Sendable {
        /// The PNG's file name, in the manifest's directory.
        public var file: String
        public var delayCs: Int
        public var delayMs: Int
        public var left: Int
        public var top: Int
        public var width: Int
        public var height: Int
        /// `unspecified`, `none`, `background` or `previous`.
        public var disposal: String
        public var transparentIndex: Int?
        public var interlaced: Bool
        public var localPalette: Bool

        public init(file: String, delayCs: Int, left: Int = 0, top: Int = 0, width: Int, height: Int,
                    disposal: GIFDisposal = .none, transparentIndex: Int? = nil, interlaced: Bool = false, localPalette: Bool = false) {
            self.file = file
            self.delayCs = delayCs
            self.delayMs = delayCs * 10
            self.left = left
            self.top = top
            self.width = width
            self.height = height
            self.disposal = disposal.rawValue
            self.transparentIndex = transparentIndex
            self.interlaced = interlaced
            self.localPalette = localPalette
        }

        enum CodingKeys: String, CodingKey {
            case file
            case delayCs = "delay_cs"
            case delayMs = "delay_ms"
            case left, top, width, height, disposal
            case transparentIndex = "transparent_index"
            case interlaced
            case localPalette = "local_palette"
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(file, forKey: .file)
            try container.encode(delayCs, forKey: .delayCs)
            try container.encode(delayMs, forKey: .delayMs)
            try container.encode(left, forKey: .left)
            try container.encode(top, forKey: .top)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(disposal, forKey: .disposal)
            try container.encode(transparentIndex, forKey: .transparentIndex)
            try container.encode(interlaced, forKey: .interlaced)
            try container.encode(localPalette, forKey: .localPalette)
        }
    }

    /// What wrote the manifest: `clipkit-frames/1` in manifests clipkit writes (nil in older
    /// ones). An output directory is replaced by `explode --force` only when it holds this mark.
    public var format: String?
    /// The `Fingerprint` of the input and options the frames were made from, when recorded.
    public var fingerprint: String?
    /// The input's file name (a name that is not UTF-8 in `FileSystemPath`'s lossless form; the
    /// JSON then holds its readable form and `source_bytes`, the bytes in base64).
    public var source: String
    public var canvas: Canvas
    /// The loop count a GIF rebuilt from the frames takes, as a NETSCAPE2.0 count (0 = forever;
    /// nil: no loop extension, plays once): a GIF's as stored, an animated PNG's plays less one
    /// (`GIFOptions.withLoopCount(of:)`), 0 for a video (as its GIF loops).
    public var loopCount: Int?
    /// The sum of the listed frames' delays.
    public var durationMs: Int
    public var frames: [Frame]

    /// The `format` clipkit writes.
    public static let currentFormat = "clipkit-frames/1"

    public init(source: String, canvas: Canvas, loopCount: Int?, frames: [Frame]) {
        self.format = Self.currentFormat
        self.source = source
        self.canvas = canvas
        self.loopCount = loopCount
        self.frames = frames
        self.durationMs = frames.reduce(0) { $0 + $1.delayMs }
    }

    enum CodingKeys: String, CodingKey {
        case format, fingerprint, source, canvas
        case loopCount = "loop_count"
        case durationMs = "duration_ms"
        case frames
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encodeIfPresent(fingerprint, forKey: .fingerprint)
        try container.encode(FileSystemPath.readable(source), forKey: .source)
        if let bytes = Self.sourceBytes(source) {
            var extra = encoder.container(keyedBy: SourceBytesKey.self)
            try extra.encode(bytes, forKey: .sourceBytes)
        }
        try container.encode(canvas, forKey: .canvas)
        try container.encode(loopCount, forKey: .loopCount)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(frames, forKey: .frames)
    }

    /// The manifest as JSON text: keys in a fixed order, one line per frame, nulls written out,
    /// so the same frames always give the same bytes.
    public func jsonText() -> String {
        var lines = ["{"]
        if let format { lines.append("  \"format\": \(Self.quoted(format)),") }
        if let fingerprint { lines.append("  \"fingerprint\": \(Self.quoted(fingerprint)),") }
        lines.append(contentsOf: Self.sourceLines(source))
        lines.append("  \"canvas\": { \"width\": \(canvas.width), \"height\": \(canvas.height) },")
        lines.append("  \"loop_count\": \(loopCount.map(String.init) ?? "null"),")
        lines.append("  \"duration_ms\": \(durationMs),")
        lines.append("  \"frames\": [")
        for (i, frame) in frames.enumerated() {
            let fields = [
                "\"file\": \(Self.quoted(frame.file))",
                "\"delay_cs\": \(frame.delayCs)",
                "\"delay_ms\": \(frame.delayMs)",
                "\"left\": \(frame.left)",
                "\"top\": \(frame.top)",
                "\"width\": \(frame.width)",
                "\"height\": \(frame.height)",
                "\"disposal\": \(Self.quoted(frame.disposal))",
                "\"transparent_index\": \(frame.transparentIndex.map(String.init) ?? "null")",
                "\"interlaced\": \(frame.interlaced)",
                "\"local_palette\": \(frame.localPalette)",
            ]
            lines.append("    { " + fields.joined(separator: ", ") + " }" + (i + 1 < frames.count ? "," : ""))
        }
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `frames.json` (or `url`) atomically.
    public func write(to url: URL) throws {
        try AtomicFile.write(Array(jsonText().utf8), to: url)
    }

    /// Writes the manifest, counting its bytes against `budget`.
    func write(to url: URL, budget: ByteBudget?) throws {
        try AtomicFile.write(Array(jsonText().utf8), to: url, budget: budget)
    }

    /// Reads and checks a manifest: every listed file exists beside it, delays fit a GIF
    /// (0 to 65535 centiseconds, `delay_ms` matching), sizes are positive.
    /// Largest frames.json read: far more than a 100000-frame manifest needs.
    static let maxManifestBytes = 64 << 20

    public static func read(from url: URL) throws -> FramesManifest {
        let path = url.path
        try InputFile.check(path)
        // Read through a FileHandle: Data(contentsOf:) leaked its buffer under the fuzzer.
        guard let handle = FileSystemPath.handleForReading(path) else {
            throw ClipKitError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxManifestBytes + 1)) ?? Data()
        if data.count > maxManifestBytes {
            throw ClipKitError.limitExceeded(path: path, what: "manifest size", limit: "\(maxManifestBytes) bytes", option: "a smaller manifest")
        }
        let manifest: FramesManifest
        do {
            manifest = try JSONDecoder().decode(FramesManifest.self, from: data)
        } catch let error as DecodingError {
            throw ClipKitError.corrupt(path: path, reason: "not a frames manifest: \(describe(error))")
        } catch {
            throw ClipKitError.corrupt(path: path, reason: "not a frames manifest: \(error)")
        }
        try manifest.validate(path: path, directory: url.deletingLastPathComponent())
        return manifest
    }

    /// The fingerprint recorded by the clipkit manifest in `directory`, when the manifest is
    /// whole and every frame it lists is there.
    static func recordedFingerprint(in directory: URL) -> Fingerprint? {
        guard let manifest = try? read(from: directory.appendingPathComponent("frames.json")),
              manifest.format == currentFormat, let text = manifest.fingerprint else { return nil }
        return Fingerprint(recorded: text)
    }

    private func validate(path: String, directory: URL) throws {
        func bad(_ reason: String) -> ClipKitError { .corrupt(path: path, reason: reason) }
        guard canvas.width > 0, canvas.height > 0, canvas.width <= 65535, canvas.height <= 65535 else {
            throw bad("canvas \(canvas.width)x\(canvas.height) is not 1 to 65535 pixels each way")
        }
        if let loopCount, !(0...65535).contains(loopCount) {
            throw bad("loop_count \(loopCount) is not 0 to 65535")
        }
        guard !frames.isEmpty else { throw bad("no frames listed") }
        for (i, frame) in frames.enumerated() {
            let name = "frame \(i) (\(frame.file))"
            guard !frame.file.isEmpty, !frame.file.contains("/"), frame.file != ".", frame.file != ".." else {
                throw bad("frame \(i): file '\(frame.file)' must be a file name in the manifest's directory")
            }
            // Over 65535 (a GIF image's most) is fine: `gif` carries it on in images that draw nothing.
            guard TimingBounds.frameDelay.contains(frame.delayCs) else {
                throw bad("\(name): delay_cs \(frame.delayCs) is not 0 to \(TimingBounds.frameDelay.upperBound) centiseconds")
            }
            guard frame.delayMs == frame.delayCs * 10 else {
                throw bad("\(name): delay_ms \(frame.delayMs) does not match delay_cs \(frame.delayCs) (expected \(frame.delayCs * 10))")
            }
            guard GIFDisposal(rawValue: frame.disposal) != nil else {
                throw bad("\(name): disposal '\(frame.disposal)' is not unspecified, none, background or previous")
            }
            guard frame.width >= 0, frame.height >= 0, frame.left >= 0, frame.top >= 0 else {
                throw bad("\(name): negative position or size")
            }
            let file = directory.appendingPathComponent(frame.file).path
            var info = stat()
            guard lstat(FileSystemPath.cString(file), &info) == 0 else { throw bad("\(name) is listed but \(file) does not exist") }
            // A link could point at any PNG on the machine: frames must be the directory's own files.
            guard info.st_mode & S_IFMT == S_IFREG else { throw bad("\(name): \(file) is not a regular file") }
        }
        let total = frames.reduce(0) { $0 + $1.delayMs }
        guard durationMs == total else {
            throw bad("duration_ms \(durationMs) is not the sum of the frames' delays (\(total))")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "" : " at \(path)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing key '\(key.stringValue)'\(at(context))"
        case .typeMismatch(_, let context): return "wrong type\(at(context)): \(context.debugDescription)"
        case .valueNotFound(_, let context): return "null value\(at(context))"
        case .dataCorrupted(let context): return "invalid JSON\(at(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private enum SourceBytesKey: String, CodingKey { case sourceBytes = "source_bytes" }

    /// The `source` line of a manifest's JSON text, and for a name that is not UTF-8 a
    /// `source_bytes` line with its bytes in base64 (as `--json` does with `input_bytes`).
    static func sourceLines(_ source: String) -> [String] {
        var lines = ["  \"source\": \(quoted(FileSystemPath.readable(source))),"]
        if let bytes = sourceBytes(source) { lines.append("  \"source_bytes\": \"\(bytes)\",") }
        return lines
    }

    /// `source_bytes`: the name's bytes in base64 when they are not UTF-8, else nil.
    private static func sourceBytes(_ source: String) -> String? {
        FileSystemPath.isUTF8(source) ? nil : Data(FileSystemPath.bytes(source)).base64EncodedString()
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
