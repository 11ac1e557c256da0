// Streams GIF records to a file with giflib: screen descriptor, loop extension, then one image at a time.
import CGIF
import Foundation

/// Writes a GIF frame by frame through giflib into a temp file beside `url`, which becomes
/// `url` only when `finish()` succeeds.
///
/// Write errors keep their cause: giflib's write callback cannot return one, so the callback
/// stores it and every giflib call is followed by a look at it (a full disk reads "No space
/// left on device", a file-size limit "File too large", `--max-output` a limit error).
public final class GIFEncoder {
    public let url: URL
    private let file: AtomicFile
    private var gif: UnsafeMutablePointer<GifFileType>?
    public private(set) var frameCount = 0
    public private(set) var bytesWritten = 0
    /// The first error of the write callback.
    private var writeError: Error?
    /// `--lossy`: 0 writes exact image data; higher lets the LZW encoder trade colour error for size.
    var lossy = 0
    private let lzw = LZWEncoder()
    private let screen: (width: Int, height: Int)
    /// The global colour table as written (padded to a power of two), nil when there is none.
    private let globalTable: [UInt8]?
    /// What the viewer sees (RGB per screen pixel) when lossy, while it is known: from an opaque
    /// image covering the screen until a disposal clears or restores part of it.
    private var canvas: [UInt8]?

    /// What the viewer sees after the images prepared so far (RGB per screen pixel), while it is
    /// known (lossy writing from an opaque first image); nil otherwise.
    var shownCanvas: [UInt8]? { canvas }

    /// Starts a GIF of `width` x `height`. `loopCount` 0 loops forever, N writes the NETSCAPE2.0
    /// count N, nil writes no loop extension (plays once). `globalPalette` nil writes no global table.
    public convenience init(url: URL, width: Int, height: Int, globalPalette: Palette?, loopCount: Int?) throws {
        try self.init(url: url, width: width, height: height, globalPalette: globalPalette, loopCount: loopCount, budget: nil)
    }

    /// `budget` bounds the bytes written (`--max-output`), checked before each write.
    init(url: URL, width: Int, height: Int, globalPalette: Palette?, loopCount: Int?, budget: ByteBudget?) throws {
        guard (1...65535).contains(width), (1...65535).contains(height) else {
            throw ClipKitError.invalidOption(name: "size", reason: "a GIF is 1 to 65535 pixels wide and high, not \(width)x\(height)")
        }
        if let loopCount, !(0...65535).contains(loopCount) {
            throw ClipKitError.invalidOption(name: "--loop", reason: "must be 0 (forever) to 65535")
        }
        self.url = url
        screen = (width, height)
        globalTable = globalPalette.map(Self.paddedTable)
        file = try AtomicFile(destination: url, budget: budget)
        var status: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        gif = EGifOpen(context, { gif, bytes, length in
            guard let gif, let bytes, let user = gif.pointee.UserData else { return 0 }
            let encoder = Unmanaged<GIFEncoder>.fromOpaque(user).takeUnretainedValue()
            guard encoder.writeError == nil else { return 0 }
            do {
                try encoder.file.write(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
                encoder.bytesWritten += Int(length)
                return length
            } catch {
                encoder.writeError = error
                return 0
            }
        }, &status)
        guard gif != nil else { throw failure(status) }
        EGifSetGifVersion(gif, true)
        try withColorMap(globalPalette) { map in
            try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map))
        }
        if let loopCount {
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE))
            try check(EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0"))
            let data: [UInt8] = [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]
            try check(EGifPutExtensionBlock(gif, 3, data))
            try check(EGifPutExtensionTrailer(gif))
        }
    }

    deinit {
        if gif != nil {
            var status: Int32 = 0
            EGifCloseFile(gif, &status)  // frees giflib's state; the temp file is discarded below
        }
        file.discard()
    }

    /// Appends one image. `frame.localPalette` nil uses the global table.
    public func add(_ frame: GIFFrame) throws {
        try write(prepare(frame), delay: frame.delay)
    }

    /// An image encoded ahead of its graphic control: its delay is known only later, but what
    /// it shows (after lossy compression) is known now.
    struct PreparedImage {
        /// The image descriptor, local table and LZW data, as written.
        var bytes: [UInt8]
        var disposal: GIFDisposal
        var transparentIndex: Int?
        /// The colour table the image uses (padded), and the index each pixel was written as:
        /// what a decoder draws (with `recordShown`; else empty).
        var table: [UInt8]
        var shown: [UInt8]
    }

    /// Encodes `frame` (descriptor, table, LZW data) without writing it; lossy compression and
    /// the canvas it follows move on as if it were written, so images are prepared in the
    /// order they are written. `recordShown` keeps the indices each pixel was written as.
    /// `rowsWritten`, while the canvas is followed, is told every `rowsPerReport` rows how many
    /// of the image's rows are written, with the canvas (RGB per screen pixel): what it shows on
    /// those rows is final. The last rows are not reported: after the call, `shownCanvas` has them.
    func prepare(_ frame: GIFFrame, recordShown: Bool = false, rowsPerReport: Int = 1,
                 rowsWritten: ((Int, UnsafeBufferPointer<UInt8>) -> Void)? = nil) throws -> PreparedImage {
        guard frame.indices.count == frame.width * frame.height, frame.width > 0, frame.height > 0 else {
            throw ClipKitError.internalFailure(path: url.path, reason: "image data does not match its size")
        }
        // The image block is encoded here rather than by giflib, whose encoder cannot be lossy.
        let local = frame.localPalette.map { Self.paddedTable(Palette(rgb: $0)) }
        guard let table = local ?? globalTable else {
            throw ClipKitError.internalFailure(path: url.path, reason: "an image without a colour table")
        }
        let tableSize = table.count / 3
        var bytes: [UInt8] = [0x2C]
        bytes.reserveCapacity(16 + (local?.count ?? 0) + frame.indices.count / 2)
        for value in [frame.left, frame.top, frame.width, frame.height] {
            bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        bytes.append(local != nil ? 0x80 | UInt8(tableSize.trailingZeroBitCount - 1) : 0)
        if let local { bytes += local }
        var shown = [UInt8]()
        if recordShown { shown = frame.indices }
        try shown.withUnsafeMutableBufferPointer { record in
            try encodeImage(frame, table: table, shown: recordShown ? record.baseAddress : nil, rowsPerReport: rowsPerReport,
                            rowsWritten: rowsWritten) { bytes += $0 }
        }
        return PreparedImage(bytes: bytes, disposal: frame.disposal, transparentIndex: frame.transparentIndex, table: table, shown: shown)
    }

    /// Writes a prepared image with its graphic control (`delay` in centiseconds).
    func write(_ image: PreparedImage, delay: Int) throws {
        let delay = max(0, min(delay, 65535))
        let packed = UInt8(image.disposal.code << 2) | (image.transparentIndex != nil ? 1 : 0)
        let control: [UInt8] = [packed, UInt8(delay & 0xFF), UInt8(delay >> 8), UInt8(image.transparentIndex ?? 0)]
        try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control))
        try write(image.bytes)
        frameCount += 1
    }

    /// LZW-encodes the image, handing the bytes to `emit`; `shown` (when lossy) receives the
    /// index each pixel was written as (it holds the wanted indices already).
    private func encodeImage(_ frame: GIFFrame, table: [UInt8], shown: UnsafeMutablePointer<UInt8>?, rowsPerReport: Int,
                             rowsWritten: ((Int, UnsafeBufferPointer<UInt8>) -> Void)?,
                             emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let codeSize = LZWEncoder.minimumCodeSize(tableSize: table.count / 3)
        guard lossy > 0 || canvas != nil else {
            try frame.indices.withUnsafeBufferPointer { try lzw.encode($0, minimumCodeSize: codeSize, emit: emit) }
            return
        }
        let coversScreen = frame.left == 0 && frame.top == 0 && frame.width == screen.width && frame.height == screen.height
        if canvas == nil, coversScreen, frame.transparentIndex == nil {
            canvas = [UInt8](repeating: 0, count: screen.width * screen.height * 3)
        }
        let fits = frame.left + frame.width <= screen.width && frame.top + frame.height <= screen.height
        if !fits { canvas = nil }
        try table.withUnsafeBufferPointer { palette in
            try frame.indices.withUnsafeBufferPointer { indices in
                var options = LZWLossy(palette: palette, bound: LZWLossy.bound(forLevel: lossy), transparentIndex: frame.transparentIndex)
                options.left = frame.left
                options.top = frame.top
                options.imageWidth = frame.width
                options.canvasWidth = screen.width
                options.shown = shown
                if canvas != nil {
                    try canvas!.withUnsafeMutableBufferPointer { pixels in
                        options.canvas = pixels.baseAddress
                        if let rowsWritten {
                            options.progressRows = rowsPerReport
                            let shown = UnsafeBufferPointer(pixels)
                            options.progress = { rows in rowsWritten(rows, shown) }
                        }
                        try lzw.encode(indices, minimumCodeSize: codeSize, lossy: options, emit: emit)
                    }
                } else {
                    try lzw.encode(indices, minimumCodeSize: codeSize, lossy: options, emit: emit)
                }
            }
        }
        // What shows after a disposal that clears or restores is not tracked.
        if frame.disposal == .background || frame.disposal == .previous { canvas = nil }
    }

    /// Writes bytes of the file outside giflib, counted and checked as giflib's writes are.
    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let writeError { throw writeError }
        do {
            try file.write(bytes)
            bytesWritten += bytes.count
        } catch {
            writeError = error
            throw error
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Entries of the colour table written for `colors` colours: the power of two that holds them (at least 2).
    static func tableSize(colors: Int) -> Int {
        var size = 2
        while size < colors { size *= 2 }
        return size
    }

    /// A colour table as written: RGB triples padded with black to a power of two (at least 2).
    private static func paddedTable(_ palette: Palette) -> [UInt8] {
        let size = tableSize(colors: palette.count)
        var table = [UInt8](repeating: 0, count: size * 3)
        for i in 0..<palette.count {
            let c = palette.color(i)
            table[i * 3] = c.r; table[i * 3 + 1] = c.g; table[i * 3 + 2] = c.b
        }
        return table
    }

    /// Appends a comment extension (one sub-block: at most 255 bytes of text).
    func addComment(_ text: String) throws {
        guard text.utf8.count <= 255 else {
            throw ClipKitError.internalFailure(path: url.path, reason: "a GIF comment of \(text.utf8.count) bytes")
        }
        try check(EGifPutComment(gif, text))
    }

    /// Writes the trailer and moves the file into place.
    public func finish() throws {
        try writeTrailer()
        try commit()
    }

    /// Writes the trailer and closes giflib's state; the file is still the temp file.
    func writeTrailer() throws {
        var status: Int32 = 0
        let before = bytesWritten
        let closed = EGifCloseFile(gif, &status)
        gif = nil
        if let writeError { throw writeError }
        guard closed == GIF_OK else { throw failure(status) }
        // giflib does not check the trailer's write; the byte count does.
        guard bytesWritten == before + 1 else {
            throw ClipKitError.outputFailed(path: url.path, reason: "the GIF trailer could not be written")
        }
    }

    /// Moves the finished temp file into place.
    func commit() throws {
        try file.commit()
    }

    /// Closes the finished temp file and hands it on, to be committed with other outputs.
    func handOver() throws -> FinishedFile {
        try file.finishWriting()
    }

    private func withColorMap(_ palette: Palette?, _ body: (UnsafeMutablePointer<ColorMapObject>?) throws -> Void) throws {
        guard let palette else { return try body(nil) }
        // GIF tables hold a power of two entries; pad with black.
        var size = 2
        while size < palette.count { size *= 2 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for i in 0..<palette.count {
            let c = palette.color(i)
            colors[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b)
        }
        guard let map = GifMakeMapObject(Int32(size), colors) else {
            throw ClipKitError.internalFailure(path: url.path, reason: "out of memory")
        }
        defer { GifFreeMapObject(map) }
        try body(map)
    }

    private func check(_ status: Int32) throws {
        if let writeError { throw writeError }
        if status != GIF_OK { throw failure(gif?.pointee.Error ?? 0) }
    }

    private func failure(_ code: Int32) -> ClipKitError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return .outputFailed(path: url.path, reason: message)
    }
}
