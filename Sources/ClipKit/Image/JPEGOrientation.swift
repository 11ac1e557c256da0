// The EXIF orientation of a JPEG photo: how a camera that was turned says to show it upright.
import Foundation

/// Reads the Orientation tag (0x0112) of a JPEG file's EXIF segment: phones store the picture as
/// the sensor saw it and record in this tag how to turn it (6: a quarter turn clockwise, for a
/// photo taken upright). FFmpeg's JPEG decoder reads the tag too, but gives it only as side data
/// of the decoded frame, which its own command line (5.1) does not apply either; browsers and
/// image viewers do. Only the file's start is read (`scannedBytes`): the EXIF segment comes
/// right after the start-of-image marker. Every offset is checked against the bytes read.
enum JPEGOrientation {
    /// How much of the file is read: the APP1 segments (EXIF at most 64 KB) lie before the picture.
    static let scannedBytes = 256 << 10

    /// The orientation (1-8) recorded in the JPEG at `path`; nil when it is not a JPEG, has no
    /// EXIF orientation, or the value is out of range.
    static func orientation(ofFile path: String) -> Int? {
        guard let data = FileSystemPath.contentsOfRegularFile(path, limit: scannedBytes) else { return nil }
        return orientation(in: [UInt8](data.prefix(scannedBytes)))
    }

    /// The orientation recorded in the JPEG whose first bytes are `bytes`.
    static func orientation(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        // Markers and their segments up to the picture data (start of scan) or the image's end.
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2 else { return nil }
            let segment = at + 4, end = at + 2 + length
            if marker == 0xE1, end <= bytes.count, end - segment >= 6,
               bytes[segment..<segment + 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {  // "Exif\0\0"
                return tiffOrientation(bytes[segment + 6..<end])
            }
            at = end
        }
        return nil
    }

    /// The Orientation entry of the first IFD of the TIFF structure `tiff` (EXIF's body).
    private static func tiffOrientation(_ tiff: ArraySlice<UInt8>) -> Int? {
        let base = tiff.startIndex, count = tiff.count
        guard count >= 8 else { return nil }
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true   // "II"
        case (0x4D, 0x4D): little = false  // "MM"
        default: return nil
        }
        func read(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, size <= count, offset <= count - size else { return nil }
            var value = 0
            for k in 0..<size {
                let byte = Int(tiff[base + offset + (little ? size - 1 - k : k)])
                value = value << 8 | byte
            }
            return value
        }
        guard read(2, 2) == 42, let ifd = read(4, 4), let entries = read(ifd, 2) else { return nil }
        for k in 0..<entries {
            let entry = ifd + 2 + 12 * k
            guard let tag = read(entry, 2) else { return nil }
            // Type 3 (SHORT), one value, held in the entry itself.
            if tag == 0x0112, read(entry + 2, 2) == 3, read(entry + 4, 4) == 1, let value = read(entry + 8, 2) {
                return (1...8).contains(value) ? value : nil
            }
        }
        return nil
    }
}
