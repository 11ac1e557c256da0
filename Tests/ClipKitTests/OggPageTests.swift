// Demuxer.partialOggPage: an Ogg file's pages chained from its tail to its end.
import Testing
@testable import ClipKit

struct OggPageTests {
    /// Ogg pages read from a tail: a chain that ends where the bytes do is whole; one whose last
    /// page runs past them is cut; an `OggS` inside a packet, whose "pages" do not chain, and
    /// bytes after the last page are neither.
    @Test func chainsAreReadFromTheTail() {
        func page(_ data: [UInt8]) -> [UInt8] {
            // A header of 27 bytes (capture pattern, version 0, zeros), lacing for `data`, `data`.
            var lacing: [UInt8] = []
            var left = data.count
            repeat { lacing.append(UInt8(min(left, 255))); left -= 255 } while left >= 0 && lacing.last == 255
            return Array("OggS".utf8) + [UInt8](repeating: 0, count: 22) + [UInt8(lacing.count)] + lacing + data
        }
        let pages = page([UInt8](repeating: 7, count: 300)) + page([1, 2, 3]) + page([UInt8](repeating: 9, count: 40))
        func check(_ bytes: [UInt8], startsFile: Bool = true) -> (have: Int, need: Int?)? {
            bytes.withUnsafeBytes { Demuxer.partialOggPage(in: $0, startsFile: startsFile) }
        }
        #expect(check(pages) == nil)
        let cut = check(Array(pages.dropLast(10)))
        #expect(cut?.have == 28 + 40 - 10 && cut?.need == 28 + 40)
        // Cut inside the last page's header: its size is not known.
        let header = check(Array(pages.dropLast(60)))
        #expect(header?.have == 8 && header.map { $0.need == nil } == true)
        // From inside the first page (a tail window): the chain from the second page on.
        #expect(check(Array(pages.dropFirst(100).dropLast(10)), startsFile: false)?.have == 58)
        #expect(check(Array(pages.dropFirst(100)), startsFile: false) == nil)
        // Bytes after the last page: no chain reaches the end.
        #expect(check(pages + [0x4F, 0x67, 0x67, 0x53, 0, 1, 2]) != nil)
        #expect(check(pages + Array("trailing tag".utf8)) == nil)
        // A lone OggS in data, its "page" running past the end, with no whole page before it.
        #expect(check([0x55, 0x55] + Array("OggS".utf8) + [0] + [UInt8](repeating: 200, count: 40), startsFile: false) == nil)
    }
}
