// GIFDecoder's block readers: extensions, image descriptors and their LZW data, the damage decoded around.
import Foundation

extension GIFDecoder {
    /// The next image, its pixels decoded when `decoding` (else only counted, or skipped:
    /// `countsPixels`), after the extensions before it; nil after the last.
    func nextImage(decoding: Bool) throws -> GIFFrame? {
        while !finished {
            guard let introducer = reader.byte() else {
                warn("the file ends without a trailer")
                finished = true
                break
            }
            switch introducer {
            case 0x3B:
                finished = true
            case 0x21:
                readExtension()
            case 0x2C:
                if let frame = try readImage(decoding: decoding) { return frame }
            default:
                // GIF89a calls stray bytes between blocks corrupt; browsers keep what came before.
                warn(String(format: "unexpected byte 0x%02X where a block should start; the rest of the file is ignored", introducer))
                finished = true
            }
        }
        return nil
    }

    func readExtension() {
        guard let label = reader.byte() else { return truncated("in an extension") }
        switch label {
        case 0xF9:
            let first = reader.subBlock()
            if case .terminator = first { return }
            guard case .data(let block) = first else { return truncated("in a graphic control extension") }
            if block.count >= 4 {
                let packed = block[0]
                var method = Int(packed >> 2) & 7
                if method == 4 { method = 3 }  // some encoders write restore-previous as 4
                var control = GraphicControl()
                control.disposal = GIFDisposal(code: method)
                control.delay = Int(block[1]) | Int(block[2]) << 8
                control.transparentIndex = packed & 1 != 0 ? Int(block[3]) : nil
                pendingControl = control
            }
        case 0xFF:
            let first = reader.subBlock()
            if case .terminator = first { return }
            guard case .data(let block) = first else { return truncated("in an application extension") }
            let identifier = block.count == 11 ? String(decoding: block, as: UTF8.self) : ""
            if identifier == "NETSCAPE2.0" || identifier == "ANIMEXTS1.0" {
                while true {
                    switch reader.subBlock() {
                    case .terminator: return
                    case .truncated: return truncated("in a loop extension")
                    case .data(let data):
                        if data.count >= 3 && data[0] & 7 == 1 {
                            loopCount = Int(data[1]) | Int(data[2]) << 8
                        }
                    }
                }
            }
        default:
            break
        }
        skipSubBlocks(context: "in an extension")
    }

    /// Reads an image descriptor and its data. Returns nil (with `finished` set) when the file
    /// ends inside the descriptor or colour table.
    func readImage(decoding: Bool) throws -> GIFFrame? {
        let index = imageCount
        guard let descriptor = reader.bytes(9) else {
            truncated("in the descriptor of image \(index)")
            return nil
        }
        let left = Int(descriptor[0]) | Int(descriptor[1]) << 8
        let top = Int(descriptor[2]) | Int(descriptor[3]) << 8
        let width = Int(descriptor[4]) | Int(descriptor[5]) << 8
        let height = Int(descriptor[6]) | Int(descriptor[7]) << 8
        let packed = descriptor[8]
        if width * height > maxPixels {
            throw ClipKitError.limitExceeded(path: url.path, what: "image \(index) size \(width)x\(height)",
                                             limit: "\(maxPixels) pixels", option: "--max-pixels")
        }
        var localPalette: [UInt8]?
        if packed & 0x80 != 0 {
            guard let table = reader.bytes(3 << (Int(packed & 7) + 1)) else {
                truncated("in the colour table of image \(index)")
                return nil
            }
            localPalette = Array(table)
        }
        let control = pendingControl ?? GraphicControl()
        let hasControl = pendingControl != nil || isGIF87a
        pendingControl = nil
        imageCount += 1
        var frame = GIFFrame(left: left, top: top, width: width, height: height, delay: control.delay,
                             disposal: control.disposal, transparentIndex: control.transparentIndex,
                             interlaced: packed & 0x40 != 0, localPalette: localPalette, indices: [])
        frame.hasGraphicControl = hasControl
        guard decoding else {
            countedUsesTransparency = true
            // The code size byte, then the data sub-blocks.
            guard let codeSize = reader.byte() else {
                truncated("in image \(index)")
                decodedPixelCount = 0
                return frame
            }
            // As the decode finds it (`decodePixels`), so `info` says what `gif` and `thumb` do.
            if index == 0 && !(1...11).contains(codeSize) {
                throw ClipKitError.corrupt(path: url.path, reason: "image 0 has an invalid LZW code size \(codeSize)")
            }
            if countsPixels && (1...11).contains(codeSize) {
                countPixels(of: frame, codeSize: Int(codeSize), index: index)
            } else {
                skipSubBlocks(context: "in image \(index)")
                // An invalid code size leaves the image transparent; uncounted ones pass as whole.
                decodedPixelCount = countsPixels ? 0 : width * height
            }
            return frame
        }
        frame.indices = [UInt8](repeating: 0, count: width * height)
        try decodePixels(of: &frame, index: index)
        return frame
    }

    func decodePixels(of frame: inout GIFFrame, index: Int) throws {
        let total = frame.width * frame.height
        decodedPixelCount = 0
        guard let codeSize = reader.byte() else {
            truncated("in image \(index), before its pixels (all \(total) are transparent)")
            return
        }
        // 9 to 11 leave room for the 12-bit codes GIF allows; larger cannot be decoded.
        guard (1...11).contains(codeSize) else {
            if index == 0 { throw ClipKitError.corrupt(path: url.path, reason: "image 0 has an invalid LZW code size \(codeSize)") }
            warn("image \(index) has an invalid LZW code size \(codeSize); it is transparent")
            skipSubBlocks(context: "in image \(index)")
            return
        }
        lzw.reset(minimumCodeSize: Int(codeSize))
        var fileEnded = false
        frame.indices.withUnsafeMutableBufferPointer { output in
            loop: while true {
                switch reader.subBlock() {
                case .terminator: break loop
                case .data(let block): lzw.decode(block, into: output)
                case .truncated(let block):
                    lzw.decode(block, into: output)
                    fileEnded = true
                    break loop
                }
            }
        }
        decodedPixelCount = lzw.position
        let missing = total - lzw.position
        switch lzw.state {
        case .invalid:
            if index == 0 && lzw.position == 0 {
                throw ClipKitError.corrupt(path: url.path, reason: "image 0 has invalid LZW data from its first code")
            }
            warn("image \(index) has invalid LZW data after \(lzw.position) of \(total) pixels; the rest is transparent")
        case .ended, .decoding:
            if fileEnded {
                truncated("in image \(index) after \(lzw.position) of \(total) pixels; the rest is transparent")
            } else if missing > 0 {
                warn("image \(index) data ends after \(lzw.position) of \(total) pixels; the rest is transparent")
            } else if lzw.state == .decoding {
                warn("image \(index) data has no LZW end code")
            }
        }
        // Codes past the image's pixels are dropped. Bytes after the end code are ignored as
        // browsers do: a few are common (FFmpeg's GIF encoder flushes one), and warned of only
        // when there are more than a padding's worth.
        if lzw.producedExcess {
            warn("image \(index) has more LZW data than its \(total) pixels; the rest was dropped")
        } else if lzw.bytesAfterEnd > Self.ignoredBytesAfterEnd {
            warn("image \(index) has \(lzw.bytesAfterEnd) bytes after its LZW end code; they were ignored")
        }
        if frame.interlaced { Self.deinterlace(&frame.indices, width: frame.width, height: frame.height) }
    }

    /// Bytes after an image's LZW end code that pass without a warning (a flush's padding).
    static let ignoredBytesAfterEnd = 16

    /// Moves rows from stored (interlaced) order to display order in place, following the
    /// permutation's cycles so no second image buffer is needed.
    static func deinterlace(_ indices: inout [UInt8], width: Int, height: Int) {
        guard height > 2, width > 0 else { return }
        let order = interlacedRowOrder(height: height)
        var placed = [Bool](repeating: false, count: height)
        var carry = [UInt8](repeating: 0, count: width)
        var swap = [UInt8](repeating: 0, count: width)
        indices.withUnsafeMutableBufferPointer { rows in
            let base = rows.baseAddress!
            for start in 0..<height where !placed[start] && order[start] != start {
                // `carry` holds the stored row `stored`, which belongs at display row order[stored].
                carry.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: base + start * width, count: width) }
                var stored = start
                while true {
                    placed[stored] = true
                    let target = order[stored]
                    if target == start {
                        carry.withUnsafeBufferPointer { (base + target * width).update(from: $0.baseAddress!, count: width) }
                        break
                    }
                    // Display row `target` currently holds stored row `target`, which moves on next.
                    swap.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: base + target * width, count: width) }
                    carry.withUnsafeBufferPointer { (base + target * width).update(from: $0.baseAddress!, count: width) }
                    Swift.swap(&carry, &swap)
                    stored = target
                }
            }
        }
    }

    func countPixels(of frame: GIFFrame, codeSize: Int, index: Int) {
        lzw.reset(minimumCodeSize: codeSize, watching: frame.transparentIndex)
        let total = frame.width * frame.height
        loop: while true {
            switch reader.subBlock() {
            case .terminator: break loop
            case .data(let block): lzw.count(block, total: total)
            case .truncated(let block):
                lzw.count(block, total: total)
                truncated("in image \(index)")
                break loop
            }
        }
        decodedPixelCount = lzw.position
        countedUsesTransparency = frame.transparentIndex != nil && lzw.sawWatched
    }

    func skipSubBlocks(context: String) {
        while true {
            switch reader.subBlock() {
            case .terminator: return
            case .data: continue
            case .truncated: return truncated(context)
            }
        }
    }

    func truncated(_ context: String) {
        warn("the file is cut short \(context)")
        finished = true
    }

    func warn(_ message: String) {
        if recorded.count < Self.maxWarnings { recorded.append(message) } else { suppressed += 1 }
    }
}
