// Motion JPEG packets: whole when they end with the end-of-image marker, padding and a few trailing bytes allowed.
import Testing
@testable import ClipKit

@Suite struct JPEGEndMarkerTests {
    func complete(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { JPEGEndMarker.isComplete($0) }
    }

    @Test func wholePicturesEndWithTheirMarker() {
        let body: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56]
        #expect(complete(body + [0xFF, 0xD9]))
        #expect(complete(body + [0xFF, 0xD9, 0x00]), "an AVI chunk padded to an even size")
        #expect(complete(body + [0xFF, 0xD9] + [UInt8](repeating: 0, count: 2000)), "padded to an aligned size")
        #expect(complete(body + [0xFF, 0xD9, 0xFF, 0xFF]), "fill bytes")
        #expect(complete(body + [0xFF, 0xD9] + [UInt8](repeating: 0x41, count: 40)), "a few bytes a camera adds")
        #expect(complete(body + [0xFF, 0xD9] + body + [0xFF, 0xD9]), "two fields")
    }

    @Test func picturesCutShortHaveNone() {
        let body: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56]
        #expect(!complete(body))
        #expect(!complete(body + [0xFF]), "cut between the marker's bytes")
        #expect(!complete([]))
        #expect(!complete([0xD9]))
        let field = body + [UInt8](repeating: 0x5A, count: 200)
        #expect(!complete(field + [0xFF, 0xD9] + field), "two fields, the second cut")
        #expect(!complete(body + [0xFF, 0xD9] + [UInt8](repeating: 0x41, count: 100)), "the first field's marker, far from the end")
    }
}
