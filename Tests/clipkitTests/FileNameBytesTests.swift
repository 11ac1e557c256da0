// File names are bytes: names that are not UTF-8 (and other odd ones) given directly or found by a scan are converted, their outputs keep the bytes, --json round-trips them.
//
// Everything is made at test time in a scratch directory (no fixture has such a name, and git
// would not keep one portably): the files are created with open(2) on raw bytes, clipkit is
// started with raw argv bytes (Foundation's Process takes Strings), and the scratch directory
// is removed with rm -rf whatever it holds.
import ClipKit
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct FileNameBytesTests {
    /// A name that is not UTF-8: bytes FF FE, a quote, and a lone lead byte C3.
    static let oddStem: [UInt8] = Array("clip".utf8) + [0xFF, 0xFE, 0x22, 0xC3]

    /// One command on a non-UTF-8 name given directly, with --json: it writes its output under
    /// the same bytes (the stem's, with its extension), byte for byte what the same command
    /// writes for the same content under a plain name; the JSON line decodes back to both paths'
    /// bytes; the shown path escapes the bytes; no temp file is left.
    @Test(arguments: [("gif", "mp4", "gif"), ("thumb", "mp4", "png"), ("explode", "gif", "frames"),
                      ("storyboard", "mp4", "storyboard"), ("info", "mp4", "")])
    func nonUTF8NameGivenDirectly(_ command: String, _ inputExtension: String, _ outputExtension: String) throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let source = inputExtension == "gif" ? Fixture.url("gif/loop_zero.gif") : Fixture.url("video/counter.mp4")
        let name = Self.oddStem + Array(".\(inputExtension)".utf8)
        try scratch.copy(source, to: name)
        try scratch.copy(source, to: Array("plain.\(inputExtension)".utf8))

        let odd = try RawRun.clipkit([Array(command.utf8), name, Array("--json".utf8)], in: scratch)
        let plain = try RawRun.clipkit([Array(command.utf8), Array("plain.\(inputExtension)".utf8), Array("--json".utf8)], in: scratch)
        #expect(odd.status == 0 && plain.status == 0, "\(odd) / \(plain)")
        let line = try #require(odd.jsonLines.first), plainLine = try #require(plain.jsonLines.first)
        #expect(odd.jsonLines.count == 1)

        // The input: shown with \xHH escapes, and its bytes in input_bytes.
        let input = try #require(Self.bytes(line, "input"))
        #expect(input.ends(with: [0x2F] + name), "\(line)")
        #expect(RawRun.inode(input) == RawRun.inode(scratch.path + [0x2F] + name))
        #expect((line["input"] as? String)?.hasSuffix("/clip\\xFF\\xFE\"\\xC3.\(inputExtension)") == true, "\(line)")
        // The same fields as the plain name's line, with the same values but the paths and time
        // (and storyboard's bytes, which count storyboard.json, where the source is named).
        let extra: Set<String> = command == "info" ? ["input_bytes"] : ["input_bytes", "outputs_bytes"]
        #expect(Set(line.keys) == Set(plainLine.keys).union(extra), "\(line.keys.sorted()) vs \(plainLine.keys.sorted())")
        for key in plainLine.keys where !["input", "outputs", "seconds"].contains(key) && !(command == "storyboard" && key == "bytes") {
            #expect(Self.canonical(line[key]) == Self.canonical(plainLine[key]), "\(key)")
        }
        guard command != "info" else {
            #expect(scratch.tree().count == 2, "\(scratch.tree())")
            return
        }

        // The output: the same bytes in its name, and the same content as the plain name's.
        let outputName = Self.oddStem + Array(".\(outputExtension)".utf8)
        let outputs = try #require(line["outputs_bytes"] as? [String])
        #expect(outputs.count == 1 && outputs.first.flatMap { Data(base64Encoded: $0) }.map(Array.init)?.ends(with: [0x2F] + outputName) == true,
                "\(line)")
        if let output = outputs.first.flatMap({ Data(base64Encoded: $0) }) {
            #expect(RawRun.inode(Array(output)) == RawRun.inode(scratch.path + [0x2F] + outputName))
        }
        #expect((line["outputs"] as? [String])?.first?.hasSuffix("/clip\\xFF\\xFE\"\\xC3.\(outputExtension)") == true, "\(line)")
        let tree = scratch.tree()
        let plainOutput = Array("plain.\(outputExtension)".utf8)
        let made = tree.filter { $0.starts(with: outputName) }, reference = tree.filter { $0.starts(with: plainOutput) }
        #expect(made.count == reference.count && !made.isEmpty, "\(tree.map(Scratch.shown))")
        for (file, plainFile) in zip(made.sorted { $0.lexicographicallyPrecedes($1) }, reference.sorted { $0.lexicographicallyPrecedes($1) }) {
            #expect(file.dropFirst(outputName.count) == plainFile.dropFirst(plainOutput.count))
            if Scratch.isDirectoryEntry(file, in: scratch) { continue }
            let ours = try #require(scratch.read(file)), theirs = try #require(scratch.read(plainFile))
            if file.ends(with: Array(".json".utf8)) {
                // All else in a manifest is the same.
                var manifest = try #require(try JSONSerialization.jsonObject(with: ours) as? [String: Any])
                var plainManifest = try #require(try JSONSerialization.jsonObject(with: theirs) as? [String: Any])
                // A manifest names its source (shown with escapes, its bytes in source_bytes).
                #expect(manifest.removeValue(forKey: "source") as? String == "clip\\xFF\\xFE\"\\xC3.\(inputExtension)")
                let sourceBytes = (manifest.removeValue(forKey: "source_bytes") as? String).flatMap { Data(base64Encoded: $0) }
                #expect(sourceBytes.map(Array.init) == name, "source_bytes")
                plainManifest["source"] = nil
                #expect(plainManifest["source_bytes"] == nil)
                #expect(NSDictionary(dictionary: manifest) == NSDictionary(dictionary: plainManifest))
            } else {
                #expect(ours == theirs, "\(Scratch.shown(file)) differs from \(Scratch.shown(plainFile))")
            }
        }
        // A real output: the plain twin decodes (and the odd one is the same bytes).
        switch command {
        case "gif": #expect(try Decoded.gif(scratch.url.appendingPathComponent("plain.gif")).delays.reduce(0, +) == 400)
        case "thumb": #expect(try Decoded.png(scratch.url.appendingPathComponent("plain.png")) == (160, 120))
        case "explode": #expect(try Decoded.explode(scratch.url.appendingPathComponent("plain.frames")).files.count == 3)
        default: #expect(tree.contains(outputName + Array("/storyboard.vtt".utf8)))
        }
        #expect(tree.allSatisfy { !Scratch.shown($0).contains(".clipkit-") }, "\(tree.map(Scratch.shown))")
    }

    /// GIF, WebP and MP4 (whose fast start re-opens the temp file by its name) and a poster from a
    /// name that is not UTF-8, into an `-o` directory that is not UTF-8 either: each the same
    /// bytes as from a plain name; then a GIF rebuilt from the exploded directory of such a name.
    @Test func everyFormatPosterAndRebuild() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let stem: [UInt8] = [0x76, 0xFF], directory: [UInt8] = [0x6F, 0xFE]
        try scratch.copy(Fixture.url("video/counter.mp4"), to: stem + Array(".mp4".utf8))
        try scratch.copy(Fixture.url("video/counter.mp4"), to: Array("plain.mp4".utf8))
        for (input, poster, output) in [(stem, stem, directory), (Array("plain".utf8), Array("plain".utf8), Array("plain-out".utf8))] {
            let run = try RawRun.clipkit([Array("gif".utf8), input + Array(".mp4".utf8), Array("--format".utf8), Array("gif,webp,mp4".utf8),
                                          Array("--poster".utf8), poster + Array("-poster.png".utf8), Array("-o".utf8), output + [0x2F]], in: scratch)
            #expect(run.status == 0, "\(run)")
        }
        for suffix in [".gif", ".webp", ".mp4"] {
            let ours = scratch.read(directory + [0x2F] + stem + Array(suffix.utf8))
            #expect(ours != nil && ours == scratch.read(Array("plain-out/plain\(suffix)".utf8)), "\(suffix): \(scratch.tree().map(Scratch.shown))")
        }
        let poster = scratch.read(stem + Array("-poster.png".utf8))
        #expect(poster != nil && poster == scratch.read(Array("plain-poster.png".utf8)))

        let gif: [UInt8] = stem + Array(".gif".utf8)
        try scratch.copy(Fixture.url("gif/loop_zero.gif"), to: gif)
        #expect(try RawRun.clipkit([Array("explode".utf8), gif], in: scratch).status == 0)
        // Replaced whole by --force: the old directory is moved aside and removed by its bytes.
        let again = try RawRun.clipkit([Array("explode".utf8), gif, Array("--force".utf8)], in: scratch)
        #expect(again.status == 0, "\(again)")
        #expect(scratch.tree().filter { $0.starts(with: stem + Array(".frames".utf8)) }.count == 1 + 3 + 1, "\(scratch.tree().map(Scratch.shown))")
        let rebuilt: [UInt8] = stem + Array("-rebuilt.gif".utf8)
        let run = try RawRun.clipkit([Array("gif".utf8), stem + Array(".frames/frames.json".utf8), Array("-o".utf8), rebuilt], in: scratch)
        #expect(run.status == 0, "\(run)")
        let data = try #require(scratch.read(rebuilt))
        let copy = scratch.url.appendingPathComponent("rebuilt-copy.gif")
        try data.write(to: copy)
        #expect(try Decoded.gif(copy).delays.count == 3)
        #expect(scratch.tree().allSatisfy { !Scratch.shown($0).contains(".clipkit-") })
    }

    /// `-o` naming a file that is not UTF-8, from a plain input.
    @Test func nonUTF8OutputName() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        try scratch.copy(Fixture.url("video/counter.mp4"), to: Array("in.mp4".utf8))
        let output: [UInt8] = [0x6F, 0xE9, 0x0A, 0x2E, 0x70, 0x6E, 0x67]  // "o", Latin-1 é, a newline, ".png"
        let run = try RawRun.clipkit([Array("thumb".utf8), Array("in.mp4".utf8), Array("-o".utf8), output, Array("--json".utf8)], in: scratch)
        #expect(run.status == 0, "\(run)")
        #expect(scratch.tree().contains(output), "\(scratch.tree().map(Scratch.shown))")
        let line = try #require(run.jsonLines.first)
        #expect(Self.list(line, "outputs").first?.ends(with: [0x2F] + output) == true, "\(line)")
        #expect(line["input_bytes"] == nil)
    }

    /// A directory of oddly named clips, scanned with -r: every one is converted (none reported
    /// and skipped), outputs mirror the tree with the same bytes, two names that differ only in
    /// Unicode normalisation or look alike when shown stay two outputs, JSON gives back each
    /// input's bytes (UTF-8 names exactly as before: text, no `_bytes` field), and `info -r`
    /// describes each.
    @Test func oddNamesInADirectoryScan() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let video = Fixture.url("video/counter.mp4"), gif = Fixture.url("gif/loop_zero.gif")
        let names: [([UInt8], URL)] = [
            (Array("plain.mp4".utf8), video),
            ([0xFF, 0xFE] + Array(".mp4".utf8), video),                     // not UTF-8, and two names that
            ([0xFF, 0xFD] + Array(".mp4".utf8), video),                     // a lossy decoding makes one
            (Array("caf".utf8) + [0xE9] + Array(".mp4".utf8), video),       // Latin-1
            (Array("new\nline.mp4".utf8), video),                           // a newline
            (Array("q\"".utf8) + [0xC3] + Array(".gif".utf8), gif),         // a quote and a cut sequence
            (Array("back\\xFF.mp4".utf8), video),                           // looks like the escape of the next
            (Array("back".utf8) + [0xFF] + Array(".mp4".utf8), video),
            (Array("e\u{301}.mp4".utf8), video),                            // é decomposed
            (Array("\u{E9}.mp4".utf8), video),                              // é composed
            (Array("\u{EFFF}\t.mp4".utf8), video),                          // the escape block's own character, a tab
            (Array("d".utf8) + [0x80] + Array("/in.mp4".utf8), video),      // a sub-directory not UTF-8
        ]
        for (name, source) in names { try scratch.copy(source, to: Array("media/".utf8) + name) }
        let run = try RawRun.clipkit(["thumb", "media", "-r", "-o", "out", "--json"].map { Array($0.utf8) }, in: scratch)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty || String(decoding: run.stderr, as: UTF8.self).hasPrefix("clipkit: 12 done"), "\(run)")

        let lines = run.jsonLines
        let inputs = lines.compactMap { Self.bytes($0, "input") }
        let expectedInputs = names.map { scratch.path + Array("/media/".utf8) + $0.0 }
        #expect(Set(inputs) == Set(expectedInputs), "\(inputs.map(Scratch.shown))")
        let plainPNG = try #require(scratch.read(Array("out/plain.png".utf8)))
        for (name, source) in names {
            var stem = name
            while let last = stem.last, last != 0x2E { stem.removeLast() }
            let output = Array("out/".utf8) + stem + Array("png".utf8)
            let written = scratch.read(output)
            #expect(written != nil, "no \(Scratch.shown(output)): \(scratch.tree().map(Scratch.shown))")
            if source == video { #expect(written == plainPNG, "\(Scratch.shown(output))") }
        }
        #expect(scratch.tree().filter { $0.starts(with: Array("out/".utf8)) && $0.ends(with: Array(".png".utf8)) }.count == names.count)
        for line in lines {
            let input = try #require(Self.bytes(line, "input"))
            if String(validating: input, as: UTF8.self) != nil {
                #expect(line["input_bytes"] == nil && line["outputs_bytes"] == nil, "\(line)")
                #expect(Array((line["input"] as? String ?? "").utf8) == input)
            } else {
                #expect(line["input_bytes"] != nil && line["outputs_bytes"] != nil, "\(line)")
                #expect((line["input"] as? String)?.contains("\\x") == true)
            }
        }

        // A rerun finds every output up to date (the fingerprints read back through the bytes).
        let rerun = try RawRun.clipkit(["thumb", "media", "-r", "-o", "out", "--json"].map { Array($0.utf8) }, in: scratch)
        #expect(rerun.status == 0 && rerun.jsonLines.count == names.count, "\(rerun)")
        #expect(rerun.jsonLines.allSatisfy { $0["status"] as? String == "skipped" }, "\(rerun)")

        let info = try RawRun.clipkit(["info", "media", "-r", "--json"].map { Array($0.utf8) }, in: scratch)
        #expect(info.status == 0, "\(info)")
        #expect(Set(info.jsonLines.compactMap { Self.bytes($0, "input") }) == Set(expectedInputs))
        #expect(info.jsonLines.allSatisfy { $0["status"] as? String == "ok" && $0["width"] as? Int != nil })
        #expect(scratch.tree().allSatisfy { !Scratch.shown($0).contains(".clipkit-") })
    }

    /// A failure on a name with a byte that is not UTF-8, a newline and a quote: one line on
    /// stderr naming it with the byte and the newline escaped (no raw control byte, valid UTF-8),
    /// the same in the JSON error, and the JSON line still gives back the name's bytes.
    @Test func failureNamesTheInputEscaped() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let name: [UInt8] = Array("bad".utf8) + [0xFF, 0x0A, 0x22] + Array(".mp4".utf8)
        try scratch.copy(Fixture.url("video/not_video.mp4"), to: name)
        for command in ["thumb", "gif", "info"] {
            let run = try RawRun.clipkit([Array(command.utf8), name, Array("--json".utf8)], in: scratch)
            #expect(run.status == 1, "\(run)")
            let stderr = run.stderr
            #expect(stderr.last == 0x0A && stderr.filter { $0 == 0x0A }.count == 1, "\(run)")
            #expect(!stderr.dropLast().contains { $0 < 0x20 || $0 == 0x7F }, "\(run)")
            let text = try #require(String(validating: stderr, as: UTF8.self))
            #expect(text.hasPrefix("clipkit: ") && text.contains("/bad\\xFF\\n\".mp4: not a video"), "\(text)")
            let line = try #require(run.jsonLines.first)
            #expect(line["status"] as? String == "error")
            #expect((line["error"] as? String)?.contains("/bad\\xFF\n\".mp4: not a video") == true, "\(line)")
            #expect(Self.bytes(line, "input")?.ends(with: [0x2F] + name) == true, "\(line)")
            #expect(line["outputs_bytes"] == nil)
        }
        #expect(scratch.tree() == [name], "\(scratch.tree().map(Scratch.shown))")
    }

    /// A JSON value as text with sorted keys, for comparing.
    static func canonical(_ value: Any?) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [value ?? NSNull()], options: [.sortedKeys])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    /// The bytes of the path under `key`: `key_bytes` (base64) when present, else the text's UTF-8.
    static func bytes(_ line: [String: Any], _ key: String) -> [UInt8]? {
        if let base64 = line[key + "_bytes"] as? String { return Data(base64Encoded: base64).map(Array.init) }
        return (line[key] as? String).map { Array($0.utf8) }
    }

    static func list(_ line: [String: Any], _ key: String) -> [[UInt8]] {
        if let encoded = line[key + "_bytes"] as? [String] { return encoded.compactMap { Data(base64Encoded: $0).map(Array.init) } }
        return (line[key] as? [String] ?? []).map { Array($0.utf8) }
    }
}

/// A scratch directory addressed by bytes, removed with everything in it.
struct Scratch {
    let url = Fixture.scratchDirectory("names")
    var path: [UInt8] { Array(url.path.utf8) }

    /// Copies `source` to `relative` (raw bytes; parents made), through open(2) and write(2).
    func copy(_ source: URL, to relative: [UInt8]) throws {
        let parts = relative.split(separator: 0x2F)
        var directory = path
        for part in parts.dropLast() {
            directory += [0x2F] + part
            _ = RawRun.withCString(directory) { mkdir($0, 0o755) }
        }
        let data = try Data(contentsOf: source)
        let fd = RawRun.withCString(path + [0x2F] + relative) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        try #require(fd >= 0, "cannot create \(Scratch.shown(relative))")
        defer { close(fd) }
        #expect(data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == data.count)
    }

    /// The file at `relative`, or nil.
    func read(_ relative: [UInt8]) -> Data? {
        let fd = RawRun.withCString(path + [0x2F] + relative) { open($0, O_RDONLY) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data(), buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            guard count > 0 else { return count == 0 ? data : nil }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Every path under the directory, relative, as bytes (hidden ones included), read with readdir.
    func tree() -> [[UInt8]] {
        var result: [[UInt8]] = []
        func visit(_ relative: [UInt8]) {
            let full = relative.isEmpty ? path : path + [0x2F] + relative
            guard let stream = RawRun.withCString(full, { opendir($0) }) else { return }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = DirectoryEntry.name(entry)
                guard name != [0x2E], name != [0x2E, 0x2E] else { continue }
                let child = relative.isEmpty ? name : relative + [0x2F] + name
                result.append(child)
                if entry.pointee.d_type == UInt8(DT_DIR) { visit(child) }
            }
        }
        visit([])
        return result
    }

    static func isDirectoryEntry(_ relative: [UInt8], in scratch: Scratch) -> Bool {
        var info = stat()
        return RawRun.withCString(scratch.path + [0x2F] + relative) { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// For messages: the bytes with anything not printable ASCII as \xHH.
    static func shown(_ bytes: [UInt8]) -> String {
        bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
    }

    /// rm -rf: FileManager cannot name what is not UTF-8.
    func remove() {
        _ = try? RawRun.spawn([Array("/bin/rm".utf8), Array("-rf".utf8), path], in: nil)
    }
}

/// A child started with raw argv bytes.
struct RawRun: CustomStringConvertible {
    var status: Int32
    var stdout: Data
    var stderr: Data

    var jsonLines: [[String: Any]] {
        String(decoding: stdout, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    var description: String {
        "exit \(status); stderr: \(Scratch.shown(Array(stderr.prefix(600)))); stdout: \(String(decoding: stdout.prefix(600), as: UTF8.self))"
    }

    static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    static func inode(_ path: [UInt8]) -> UInt64? {
        var info = stat()
        return withCString(path) { stat($0, &info) } == 0 ? UInt64(info.st_ino) : nil
    }

    /// clipkit with `arguments`, in the scratch directory (through `env -C`), stdin from /dev/null.
    static func clipkit(_ arguments: [[UInt8]], in scratch: Scratch) throws -> RawRun {
        try spawn([Array("/usr/bin/env".utf8), Array("-C".utf8), scratch.path, Array(CLI.binary.path.utf8)] + arguments, in: scratch)
    }

    /// Runs `argv` (argv[0] is the program's path), killed after 60 s; stdout and stderr through
    /// files in a log directory of their own, removed afterwards.
    static func spawn(_ argv: [[UInt8]], in scratch: Scratch?) throws -> RawRun {
        let logs = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("clipkit-tests-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let out = logs.appendingPathComponent("stdout").path, err = logs.appendingPathComponent("stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let pointers: [UnsafeMutablePointer<CChar>?] = argv.map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
        defer { pointers.forEach { $0?.deallocate() } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, pointers[0]!, &actions, nil, pointers, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        let start = Date()
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date().timeIntervalSince(start) > 60 { kill(pid, SIGKILL) }
            usleep(5000)
        }
        func contents(_ path: String) -> Data {
            guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
            defer { try? handle.close() }
            return (try? handle.readToEnd()) ?? Data()
        }
        let exit: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return RawRun(status: exit, stdout: contents(out), stderr: contents(err))
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
