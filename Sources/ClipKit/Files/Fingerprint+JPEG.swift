// The fingerprint a JPEG thumbnail records: a comment segment among its headers.
import Foundation

extension Fingerprint {
    /// `jpeg` (a whole JFIF file from libavcodec's mjpeg) with a comment segment (COM, FF FE)
    /// holding `keyword text` after its JFIF header (APP0, which the JFIF format wants first),
    /// or after SOI when it has none. Every decoder skips comments.
    func recording(inJPEG jpeg: [UInt8]) -> [UInt8] {
        let payload = Array((Self.keyword + " " + text).utf8)
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        var at = 2
        if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 {
            at = min(jpeg.count, 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])))
        }
        return Array(jpeg[..<at]) + segment + Array(jpeg[at...])
    }

    /// The fingerprint a JPEG records (`recording(inJPEG:)`): the first comment segment among
    /// the headers of `head` (the file's first bytes) that starts with the keyword.
    static func fromJPEG(_ head: [UInt8]) -> Fingerprint? {
        guard head.count >= 4, head[0] == 0xFF, head[1] == 0xD8 else { return nil }
        let prefix = Array((keyword + " ").utf8)
        var at = 2
        // Marker segments up to the first that is not one (SOS, or data): each FF xx, length.
        while at + 4 <= head.count, head[at] == 0xFF, head[at + 1] != 0xDA, head[at + 1] >= 0xC0 {
            let length = Int(head[at + 2]) << 8 | Int(head[at + 3])
            guard length >= 2 else { return nil }
            let end = at + 2 + length
            if head[at + 1] == 0xFE, end <= head.count, length - 2 > prefix.count,
               Array(head[(at + 4)..<(at + 4 + prefix.count)]) == prefix {
                return Fingerprint(recorded: String(decoding: head[(at + 4 + prefix.count)..<end], as: UTF8.self))
            }
            at = end
        }
        return nil
    }
}
