// FileSystemPath: every byte string survives the trip through String and back; UTF-8 text is left as it is.
import ClipKit
import Foundation
import Testing
import TestSupport

@Suite struct FileSystemPathTests {
    /// Every string of one byte and of two that starts outside ASCII (NUL and `/` excepted: no
    /// name holds them), and random
    /// longer ones biased to bytes of multi-byte sequences, come back as they were.
    @Test func everyByteStringRoundTrips() {
        var failures: [[UInt8]] = []
        for a in 1...255 where a != 0x2F {
            if FileSystemPath.bytes(FileSystemPath.string([UInt8(a)])) != [UInt8(a)] { failures.append([UInt8(a)]) }
            // Pairs that start with ASCII are two one-byte cases.
            for b in 1...255 where b != 0x2F && a >= 0x80 {
                let bytes = [UInt8(a), UInt8(b)]
                if FileSystemPath.bytes(FileSystemPath.string(bytes)) != bytes { failures.append(bytes) }
            }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x2E, 0x0A, 0x22, 0x5C, 0x80, 0xBF, 0xC0, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0,
                                 0xEE, 0xBC, 0xBE, 0xEF, 0xF0, 0x9F, 0x98, 0x80, 0xF4, 0x90, 0xF8, 0xFE, 0xFF]
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let string = FileSystemPath.string(bytes)
            if FileSystemPath.bytes(string) != bytes || FileSystemPath.cString(string) != bytes.map(CChar.init(bitPattern:)) + [0] {
                failures.append(bytes)
            }
            // Splicing names (a stem and an extension) splices their bytes.
            if FileSystemPath.bytes(string + ".gif") != bytes + Array(".gif".utf8) { failures.append(bytes) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// UTF-8 names are the String they spell (so every path clipkit handled before is
    /// unchanged); a byte that is not UTF-8 is never `/`, `.` or NUL in the String either.
    @Test func utf8IsUnchanged() {
        for text in ["clip.mp4", "é.gif", "日本語/動画.mov", "a\nb\t\"c\\xFF.mp4", "😀.webm", "e\u{301}.mp4", "\u{EF7F}\u{F000}"] {
            #expect(FileSystemPath.string(Array(text.utf8)) == text)
            #expect(FileSystemPath.bytes(text) == Array(text.utf8))
            #expect(FileSystemPath.isUTF8(text))
            #expect(FileSystemPath.display(text) == text)
            #expect(FileSystemPath.jsonFields("input", text).count == 1)
        }
        let odd = FileSystemPath.string([0x61, 0xFF, 0x2E, 0xC3, 0x2F, 0x62])
        #expect(odd.split(separator: "/").count == 2 && odd.hasPrefix("a") && odd.contains(".") && !odd.contains("\0"))
        #expect(URL(fileURLWithPath: "/d/" + FileSystemPath.string([0x61, 0xFF, 0x2E, 0x6D, 0x70, 0x34])).deletingPathExtension().lastPathComponent
            == FileSystemPath.string([0x61, 0xFF]))
    }

    /// A real name made of the escape block's own characters (U+EF80...U+EFFF) is valid UTF-8:
    /// it is escaped byte by byte in the String, so it cannot be mistaken for another name, and
    /// JSON still writes it as its text.
    @Test func escapeBlockCharactersStayDistinct() throws {
        let genuine = Array("x\u{EFFF}y".utf8)  // EF BF BF
        let string = FileSystemPath.string(genuine)
        #expect(FileSystemPath.bytes(string) == genuine)
        #expect(string != "x\u{EFFF}y")
        #expect(FileSystemPath.isUTF8(string) && FileSystemPath.text(string) == "x\u{EFFF}y")
        #expect(FileSystemPath.jsonFields("input", string) as? [String: String] == ["input": "x\u{EFFF}y"])
        // The one byte 0xFF is another name.
        #expect(FileSystemPath.string([0x78, 0xFF, 0x79]) != string)
    }

    /// Messages show each byte that is not UTF-8 as \xHH; JSON adds the bytes in base64.
    @Test func displayAndJSON() throws {
        let path = FileSystemPath.string(Array("/m/a".utf8) + [0xFF, 0x22, 0xC3] + Array(".gif".utf8))
        #expect(!FileSystemPath.isUTF8(path))
        #expect(FileSystemPath.display(path) == "/m/a\\xFF\"\\xC3.gif")
        #expect(FileSystemPath.display("error in \(path): bad") == "error in /m/a\\xFF\"\\xC3.gif: bad")
        let fields = FileSystemPath.jsonFields("input", path)
        #expect(fields["input"] as? String == "/m/a\\xFF\"\\xC3.gif")
        let base64 = try #require(fields["input_bytes"] as? String)
        #expect(Data(base64Encoded: base64).map(Array.init) == Array("/m/a".utf8) + [0xFF, 0x22, 0xC3] + Array(".gif".utf8))
        let list = FileSystemPath.jsonFields("outputs", ["/o/plain.png", path])
        #expect(list["outputs"] as? [String] == ["/o/plain.png", "/m/a\\xFF\"\\xC3.gif"])
        let encoded = try #require(list["outputs_bytes"] as? [String])
        #expect(encoded.compactMap { Data(base64Encoded: $0).map(Array.init) } == [Array("/o/plain.png".utf8), FileSystemPath.bytes(path)])
        #expect(FileSystemPath.jsonFields("outputs", ["/o/plain.png"]).count == 1)
    }

    /// The calls work on the bytes: a directory and file with such names are made, listed,
    /// found, resolved and removed, and the bytes on disk are the bytes given.
    @Test func callsUseTheBytes() throws {
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("clipkit-fsp-\(UUID().uuidString.prefix(8))").path
        let directory = scratch + "/" + FileSystemPath.string([0x64, 0xE9]) + "/" + FileSystemPath.string([0x73, 0xFF])
        defer { FileSystemPath.removeTree(scratch) }
        try FileSystemPath.createDirectories(directory)
        #expect(FileSystemPath.isDirectory(directory))
        let file = directory + "/" + FileSystemPath.string([0x66, 0x0A, 0xFE])
        let fd = open(FileSystemPath.cString(file), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0)
        close(fd)
        var isDirectory = true
        #expect(FileSystemPath.exists(file, isDirectory: &isDirectory) && !isDirectory)
        #expect(FileSystemPath.contents(of: directory) == [FileSystemPath.string([0x66, 0x0A, 0xFE])])
        // What the kernel holds, read with plain readdir.
        let stream = try #require(opendir(FileSystemPath.cString(scratch)))
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = DirectoryEntry.name(entry)
            if name.first != 0x2E { names.append(name) }
        }
        closedir(stream)
        #expect(names == [[0x64, 0xE9]])
        let real = FileSystemPath.resolvingLinks(directory)
        #expect(Array(FileSystemPath.bytes(real).suffix(6)) == [0x2F, 0x64, 0xE9, 0x2F, 0x73, 0xFF])
        #expect(FileSystemPath.resolvingLinks(directory + "/../" + FileSystemPath.string([0x73, 0xFF])) == real)
        FileSystemPath.removeTree(scratch + "/" + FileSystemPath.string([0x64, 0xE9]))
        #expect(FileSystemPath.contents(of: scratch) == [])
    }
}
