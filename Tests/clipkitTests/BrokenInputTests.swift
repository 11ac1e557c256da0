// Every command over the corpus of broken inputs in Fixtures/bad (plus a FIFO made here): never a
// signal or a hang, exit 0 or 1, a one-line message per failure, and no output for a failure.
import Foundation
import Testing
import TestSupport

@Suite struct BrokenInputTests {
    struct Line: Decodable {
        var input: String
        var outputs: [String]
        var status: String
        var error: String?
    }

    /// Every entry of Fixtures/bad, and a FIFO named like a video. Each is reached through a link
    /// whose stem is the whole name (empty.gif -> empty_gif.gif), since two inputs with one stem
    /// (empty.gif, empty.mp4) would be written to one output, which a batch refuses.
    func corpus(in dir: URL) throws -> [String] {
        let bad = Fixture.url("bad")
        let names = try FileManager.default.contentsOfDirectory(atPath: bad.path).filter { $0 != "README.md" }.sorted()
        let links = dir.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        var paths: [String] = []
        for name in names {
            let ext = (name as NSString).pathExtension
            let link = links.appendingPathComponent(name.replacingOccurrences(of: ".", with: "_") + "." + ext).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: bad.appendingPathComponent(name).path)
            paths.append(link)
        }
        let fifo = dir.appendingPathComponent("fifo.mp4").path
        #expect(mkfifo(fifo, 0o644) == 0)
        return paths + [fifo]
    }

    /// Runs `arguments`, killing it if it takes longer than `seconds`.
    func runBounded(_ arguments: [String], in dir: URL, seconds: Double) throws -> CLI.Result {
        let box = Box<CLI.Result?>()
        let child = Box<Process>()
        let thread = Thread { box.set(try? CLI.run(arguments, in: dir, started: { child.set($0) })) }
        thread.start()
        if let result = box.wait(timeout: seconds) { return try #require(result) }
        Issue.record("clipkit \(arguments[0]) did not finish within \(seconds) s")
        // Stop the stuck process, and only that one: other tests run clipkit at the same time, so
        // matching processes by their command line could kill theirs. isRunning first: once the child has
        // exited and been reaped, its pid may already belong to another process.
        if let process = child.wait(timeout: 10), process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        return try #require(box.wait())
    }

    @Test(arguments: ["thumb", "gif", "explode", "thumb --pick best --count 2", "gif --format gif,webp,mp4", "gif --lossy 40", "gif --max-bytes 6KB", "storyboard"])
    func commandSurvivesCorpus(_ commandLine: String) throws {
        let words = commandLine.split(separator: " ").map(String.init)
        let command = words[0]
        let dir = Fixture.scratchDirectory("corpus-\(words.joined())")
        let inputs = try corpus(in: dir)
        var arguments = [command] + inputs + ["-o", "out/", "--json", "--jobs", "2", "--timeout", "30"] + words.dropFirst()
        if command == "gif" { arguments += ["--fps", "5", "--width", "64"] }
        let result = try runBounded(arguments, in: dir, seconds: 240)
        #expect(result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr.suffix(500))")
        let lines = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count == inputs.count, "one report per input")
        let errorLines = result.stderrLines.filter { !$0.contains("warning:") && $0.hasPrefix("clipkit: /") }
        #expect(errorLines.count == lines.filter { $0.status == "error" }.count, "one stderr line per failure")
        for line in lines {
            switch line.status {
            case "error":
                #expect(line.error.map { !$0.isEmpty && !$0.contains("\n") } == true, "\(line.input)")
                for output in line.outputs {
                    #expect(!FileManager.default.fileExists(atPath: output), "\(line.input) failed but left \(output)")
                }
            case "ok":
                #expect(line.outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(line.input)")
            default:
                Issue.record("unexpected status \(line.status) for \(line.input)")
            }
        }
        // No temp files or staging directories anywhere.
        #expect(!CLI.files(in: dir).contains { $0.contains(".clipkit-") }, "\(CLI.files(in: dir).filter { $0.contains(".clipkit-") })")
        // The corpus must exercise both outcomes.
        #expect(lines.contains { $0.status == "error" })
    }

    @Test func infoSurvivesCorpus() throws {
        let dir = Fixture.scratchDirectory()
        for input in try corpus(in: dir) {
            let result = try runBounded(["info", input], in: dir, seconds: 30)
            #expect(result.status == 0 || result.status == 1, "\(input): exit \(result.status)")
            if result.status == 1 {
                #expect(result.stderrLines.count == 1, "\(input): \(result.stderr)")
            }
        }
    }
}
