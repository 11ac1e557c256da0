// Rotation from display matrices, and turning pixels upright.
import Testing
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
}
