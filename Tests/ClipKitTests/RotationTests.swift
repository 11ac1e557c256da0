// Rotation from display matrices and EXIF orientations, and turning pixels upright.
import Foundation
import Testing
import TestSupport
@testable import ClipKit

@Suite struct RotationTests {
    /// 2x1 image: red, green.
    let image = RGBAImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 255, 0, 255])

    @Test func readsDisplayMatrices() {
        // What ffmpeg writes for "rotate 90 clockwise for display" (ffprobe shows rotation -90).
        let cw90 = Rotation(displayMatrix: [0, 65536, 0, -65536, 0, 0, 0, 0, 1 << 30])
        #expect(cw90.degrees == 90 && !cw90.isMirrored)
        #expect(Rotation(displayMatrix: [-65536, 0, 0, 0, -65536, 0, 0, 0, 1 << 30]).degrees == 180)
        #expect(Rotation(displayMatrix: [0, -65536, 0, 65536, 0, 0, 0, 0, 1 << 30]).degrees == 270)
        #expect(Rotation(displayMatrix: [-65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30]).isMirrored)
        #expect(Rotation(displayMatrix: [0, 0, 0, 0, 0, 0, 0, 0, 0]) == .identity)
    }

    /// A 90-degree track matrix times a movie matrix that scales x by 2 (or y by 3): still a
    /// quarter turn, as av_display_rotation_get reads it; the scale used to hide the rotation.
    @Test func readsScaledDisplayMatrices() {
        let scaledX = Rotation(displayMatrix: [0, 131072, 0, -65536, 0, 0, 0, 0, 1 << 30])
        #expect(scaledX == Rotation(clockwiseDegrees: 90))
        let scaledY = Rotation(displayMatrix: [0, -65536, 0, 196608, 0, 0, 0, 0, 1 << 30])
        #expect(scaledY == Rotation(clockwiseDegrees: 270))
        let mirroredScaled = Rotation(displayMatrix: [-131072, 0, 0, 0, 65536, 0, 0, 0, 1 << 30])
        #expect(mirroredScaled == Rotation(displayMatrix: [-65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30]))
    }

    /// Found by the video fuzzer: a matrix that snaps to a shear (det -1, but not a signed
    /// permutation) mapped pixels outside the picture. It is no quarter turn: left alone.
    @Test func shearsAndHalfQuarterTurnsAreIgnored() {
        #expect(Rotation(displayMatrix: [131070, -16777216, 0, -131072, 0, 0, 0, 0, 1 << 30]) == .identity)
        #expect(Rotation(displayMatrix: [46341, 46341, 0, -46341, 46341, 0, 0, 0, 1 << 30]) == .identity)  // 45 degrees
        let image = RGBAImage(width: 3, height: 2)
        for matrix: [Int32] in [[131070, -16777216, 0, -131072, 0, 0, 0, 0, 1 << 30], [65536, 65536, 0, 65536, 0, 0, 0, 0, 1 << 30]] {
            let turned = image.applying(Rotation(displayMatrix: matrix))
            #expect(turned.pixels.count == 3 * 2 * 4)
        }
    }

    @Test func turnsPixels() {
        let cw = image.applying(Rotation(clockwiseDegrees: 90))
        #expect(cw.width == 1 && cw.height == 2)
        #expect(cw.pixel(x: 0, y: 0).r == 255 && cw.pixel(x: 0, y: 1).g == 255)  // left end goes to the top
        let ccw = image.applying(Rotation(clockwiseDegrees: 270))
        #expect(ccw.pixel(x: 0, y: 0).g == 255 && ccw.pixel(x: 0, y: 1).r == 255)
        let half = image.applying(Rotation(clockwiseDegrees: 180))
        #expect(half.pixel(x: 0, y: 0).g == 255)
        let mirrored = image.applying(Rotation(clockwiseDegrees: 0, mirrored: true))
        #expect(mirrored.pixel(x: 0, y: 0).g == 255 && mirrored.width == 2)
    }

    /// The eight EXIF orientations turn pixels as the EXIF specification (and Pillow's
    /// `exif_transpose`, browsers, viewers) shows them: checked pixel by pixel on a 3x2 picture
    /// against each orientation's definition.
    @Test func exifOrientationsTurnPixelsAsViewersDo() {
        let (w, h) = (3, 2)
        var source = RGBAImage(width: w, height: h)
        for p in 0..<w * h { source.pixels.replaceSubrange(p * 4..<p * 4 + 4, with: [UInt8(p * 40), 0, 0, 255]) }
        // Where upright pixel (x, y) comes from, and the upright size.
        let definitions: [Int: (swaps: Bool, from: (Int, Int) -> (Int, Int))] = [
            1: (false, { ($0, $1) }), 2: (false, { (w - 1 - $0, $1) }), 3: (false, { (w - 1 - $0, h - 1 - $1) }),
            4: (false, { ($0, h - 1 - $1) }), 5: (true, { ($1, $0) }), 6: (true, { ($1, h - 1 - $0) }),
            7: (true, { (w - 1 - $1, h - 1 - $0) }), 8: (true, { (w - 1 - $1, $0) }),
        ]
        for orientation in 1...8 {
            let definition = definitions[orientation]!
            let upright = source.applying(Rotation(exifOrientation: orientation))
            #expect((upright.width, upright.height) == (definition.swaps ? (h, w) : (w, h)), "orientation \(orientation)")
            for y in 0..<upright.height {
                for x in 0..<upright.width {
                    let (sx, sy) = definition.from(x, y)
                    #expect(upright.pixel(x: x, y: y).r == source.pixel(x: sx, y: sy).r, "orientation \(orientation) at \(x),\(y)")
                }
            }
        }
        #expect(Rotation(exifOrientation: 0) == .identity && Rotation(exifOrientation: 9) == .identity)
    }

    /// The Orientation tag of a JPEG's EXIF segment, in either byte order; nothing from a file
    /// without one, a value out of range, or a segment cut short.
    @Test func readsEXIFOrientation() {
        func jpeg(tiff: [UInt8], marker: UInt8 = 0xE1) -> [UInt8] {
            let body = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
            let length = body.count + 2
            return [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body + [0xFF, 0xDA, 0, 2]
        }
        // One IFD entry: tag 0x0112, type SHORT, count 1, the value.
        let bigEndian: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
        let littleEndian: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0]
        #expect(JPEGOrientation.orientation(in: jpeg(tiff: bigEndian)) == 6)
        #expect(JPEGOrientation.orientation(in: jpeg(tiff: littleEndian)) == 3)
        var outOfRange = bigEndian
        outOfRange[19] = 9
        #expect(JPEGOrientation.orientation(in: jpeg(tiff: outOfRange)) == nil)
        #expect(JPEGOrientation.orientation(in: jpeg(tiff: Array(bigEndian.prefix(16)))) == nil)
        #expect(JPEGOrientation.orientation(in: jpeg(tiff: bigEndian, marker: 0xE2)) == nil)
        #expect(JPEGOrientation.orientation(in: Array(jpeg(tiff: bigEndian).prefix(20))) == nil)
        #expect(JPEGOrientation.orientation(in: [0x89, 0x50, 0x4E, 0x47]) == nil)
        #expect(JPEGOrientation.orientation(ofFile: Fixture.url("video/orient6.jpg").path) == 6)
        #expect(JPEGOrientation.orientation(ofFile: Fixture.url("video/still.jpg").path) == nil)
    }

    /// A phone photo (EXIF orientation 6) is shown upright, as browsers show it: 32x64, the
    /// stored picture's bottom left quadrant (blue) at the top left.
    @Test func aJPEGPhotoIsShownUpright() throws {
        let url = Fixture.url("video/orient6.jpg")
        #expect(try VideoReader(url: url).info.rotation == Rotation(clockwiseDegrees: 90))
        let poster = try Thumbnailer(options: ThumbnailOptions()).thumbnail(of: url)
        #expect(poster.width == 32 && poster.height == 64)
        for (x, y, want) in [(4, 4, (0, 0, 255)), (27, 4, (255, 0, 0)), (4, 59, (255, 255, 255)), (27, 59, (0, 255, 0))] {
            let p = poster.pixel(x: x, y: y)
            #expect(abs(Int(p.r) - want.0) < 24 && abs(Int(p.g) - want.1) < 24 && abs(Int(p.b) - want.2) < 24, "\(x),\(y): \(p)")
        }
    }
}
