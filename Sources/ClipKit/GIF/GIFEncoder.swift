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
        guard frame.indices.count == frame.width * frame.height, frame.width > 0, frame.height > 0 else {
            throw ClipKitError.internalFailure(path: url.path, reason: "image data does not match its size")
        }
        let delay = max(0, min(frame.delay, 65535))
        let packed = UInt8(frame.disposal.code << 2) | (frame.transparentIndex != nil ? 1 : 0)
        let control: [UInt8] = [packed, UInt8(delay & 0xFF), UInt8(delay >> 8), UInt8(frame.transparentIndex ?? 0)]
        try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control))
        try withColorMap(frame.localPalette.map { Palette(rgb: $0) }) { map in
            try check(EGifPutImageDesc(gif, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height), false, map))
        }
        var indices = frame.indices
        try indices.withUnsafeMutableBufferPointer { buffer in
            try check(EGifPutLine(gif, buffer.baseAddress, Int32(buffer.count)))
        }
        frameCount += 1
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
