// Refuses an argument that starts with a dash but is no option of its command (a file named `-x.mp4`).
import ArgumentParser
import ClipKit
import Foundation

/// The argument parser reads `-dash.mp4` as a cluster of short options (`-h` among them prints
/// help and exits 0): before parsing, every dashed argument must be one of the command's option
/// names, or a cluster of its short flags, and must not also name an existing file.
enum DashedArguments {
    /// A one-line usage error for the first argument that would be misread, or nil.
    static func problem(in arguments: [String]) -> String? {
        guard let command = arguments.first, !command.hasPrefix("-"), arguments.count > 1,
              let names = optionNames(of: command) else { return nil }
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument != "-" else { continue }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            let known: Bool
            if name.hasPrefix("--") {
                known = names.long.contains(String(name.dropFirst(2)))
                // `--name value`: the value is not an option, whatever it starts with (`-o -`, `--start -1`).
                if known, !argument.contains("="), names.takesValue.contains(name) { index += 1 }
            } else {
                let letters = Array(name.dropFirst())
                known = !argument.contains("=") && letters.allSatisfy { names.short.contains(String($0)) }
                if known, let last = letters.last, names.takesValue.contains("-\(last)") { index += 1 }
            }
            if !known || FileSystemPath.exists(argument) {
                let reason = known ? "is an option of \(command) and also a file here" : "is not an option of \(command)"
                return "clipkit: \(argument): \(reason); for a file of that name write `clipkit \(command) -- \(argument)`"
            }
        }
        return nil
    }

    struct Names {
        var long: Set<String> = []
        var short: Set<String> = []
        /// Spelled with their dashes: `--output`, `-o`.
        var takesValue: Set<String> = []
    }

    /// The command's options, from the parser's own description of it (nil for no such command).
    static func optionNames(of command: String) -> Names? {
        let dump: String
        do {
            _ = try Clipkit.parseAsRoot([command, "--experimental-dump-help"])
            return nil
        } catch {
            dump = Clipkit.message(for: error)
        }
        guard let json = try? JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any],
              let sub = json["command"] as? [String: Any], sub["commandName"] as? String == command else { return nil }
        var names = Names()
        for argument in (sub["arguments"] as? [[String: Any]]) ?? [] {
            let isOption = argument["kind"] as? String == "option"
            for entry in (argument["names"] as? [[String: Any]]) ?? [] {
                guard let name = entry["name"] as? String else { continue }
                if entry["kind"] as? String == "short" {
                    names.short.insert(name)
                    if isOption { names.takesValue.insert("-" + name) }
                } else {
                    names.long.insert(name)
                    if isOption { names.takesValue.insert("--" + name) }
                }
            }
        }
        return names
    }
}
