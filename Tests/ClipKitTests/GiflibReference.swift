// A second GIF decoder for tests: giflib's DGifSlurp plus a plain compositor, independent of ClipKit's decoder.
import CGIF
import Foundation
@testable import ClipKit

/// What giflib reads from a GIF file, composited the straightforward way.
struct GiflibReference {
    struct Image {
        var left, top, width, height: Int
        var delay: Int
        var disposal: Int
        var transparent: Int?
        var hasLocalTable: Bool
        /// Entries of the colour table the image uses (its own, else the global one).
        var tableSize = 0
    }

    var width = 0
    var height = 0
    var images: [Image] = []
    /// NETSCAPE2.0 loop count, nil when absent.
    var loopCount: Int?
    var hasGlobalTable = false
    /// The canvas after each image, RGBA.
    var canvases: [RGBAImage] = []

    var delays: [Int] { images.map(\.delay) }

    init(url: URL) throws {
        var error: Int32 = 0
        guard let gif = DGifOpenFileName(url.path, &error) else { throw ClipKitError.notMedia(path: url.path, reason: "giflib open \(error)") }
        defer { DGifCloseFile(gif, &error) }
        guard DGifSlurp(gif) == GIF_OK else { throw ClipKitError.corrupt(path: url.path, reason: "giflib slurp \(gif.pointee.Error)") }
        width = Int(gif.pointee.SWidth)
        height = Int(gif.pointee.SHeight)
        hasGlobalTable = gif.pointee.SColorMap != nil
        var canvas = RGBAImage(width: width, height: height)
        for i in 0..<Int(gif.pointee.ImageCount) {
            let saved = gif.pointee.SavedImages[i]
            var gcb = GraphicsControlBlock()
            gcb.TransparentColor = NO_TRANSPARENT_COLOR
            DGifSavedExtensionToGCB(gif, Int32(i), &gcb)
            for e in 0..<Int(saved.ExtensionBlockCount) {
                let block = saved.ExtensionBlocks[e]
                if block.Function == APPLICATION_EXT_FUNC_CODE, block.ByteCount == 11,
                   String(cString: Array(UnsafeBufferPointer(start: block.Bytes, count: 11)).map { CChar(bitPattern: $0) } + [0]) == "NETSCAPE2.0",
                   e + 1 < Int(saved.ExtensionBlockCount) {
                    let sub = saved.ExtensionBlocks[e + 1]
                    if sub.ByteCount >= 3 { loopCount = Int(sub.Bytes[1]) | Int(sub.Bytes[2]) << 8 }
                }
            }
            let d = saved.ImageDesc
            var image = Image(left: Int(d.Left), top: Int(d.Top), width: Int(d.Width), height: Int(d.Height),
                              delay: Int(gcb.DelayTime), disposal: Int(gcb.DisposalMode),
                              transparent: gcb.TransparentColor == NO_TRANSPARENT_COLOR ? nil : Int(gcb.TransparentColor),
                              hasLocalTable: d.ColorMap != nil)
            let map = (d.ColorMap ?? gif.pointee.SColorMap)!.pointee
            image.tableSize = Int(map.ColorCount)
            images.append(image)
            let before = canvas
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let cx = image.left + x, cy = image.top + y
                    guard cx < width, cy < height else { continue }
                    let index = Int(saved.RasterBits[y * image.width + x])
                    if index == image.transparent { continue }
                    let c = map.Colors[index]
                    let o = (cy * width + cx) * 4
                    canvas.pixels[o] = c.Red; canvas.pixels[o + 1] = c.Green; canvas.pixels[o + 2] = c.Blue; canvas.pixels[o + 3] = 255
                }
            }
            canvases.append(canvas)
            if image.disposal == 2 {
                for y in image.top..<min(image.top + image.height, height) {
                    for x in image.left..<min(image.left + image.width, width) {
                        let o = (y * width + x) * 4
                        for k in 0..<4 { canvas.pixels[o + k] = 0 }
                    }
                }
            } else if image.disposal == 3 {
                canvas = before
            }
        }
        // The loop extension sits before the first image; giflib files it under the first image's
        // extensions in DGifSlurp, which the loop above read.
    }
}

/// Mean absolute difference per channel (RGB) between two same-size images.
func meanAbsoluteDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    var total = 0
    for i in 0..<(a.width * a.height) {
        for k in 0..<3 { total += abs(Int(a.pixels[i * 4 + k]) - Int(b.pixels[i * 4 + k])) }
    }
    return Double(total) / Double(a.width * a.height * 3)
}

/// PSNR in dB over RGB.
func psnr(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    var sum = 0.0
    for i in 0..<(a.width * a.height) {
        for k in 0..<3 {
            let d = Double(a.pixels[i * 4 + k]) - Double(b.pixels[i * 4 + k])
            sum += d * d
        }
    }
    let mse = sum / Double(a.width * a.height * 3)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// The counter fixture's frame number from a pixel colour (R = 8 + 16*(n%16), G = 8 + 16*(n/16)).
func counterFrame(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Int {
    let low = (Int(p.r) - 8 + 8) / 16, high = (Int(p.g) - 8 + 8) / 16
    return high * 16 + low
}
