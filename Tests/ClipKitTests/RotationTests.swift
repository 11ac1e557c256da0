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
