// One `--json` line of any clipkit command, read tolerantly: known fields typed, every field kept for display.
import Foundation

/// A line `clipkit gif|thumb|storyboard|explode|info --json` wrote. Unknown fields (a newer
/// clipkit's, such as `ssimulacra2`) are kept in `fields` and shown as they are.
public struct RunLine: Sendable, Equatable {
    public var input: String
    public var outputs: [String]
    /// `ok`, `skipped` or `error` (a line without one counts as `ok`).
    public var status: String
    public var error: String?
    public var shard: String?
    /// What the input was read around (damage, a file cut short): the line's `warnings`.
    public var warnings: [String]
    /// Every scalar field as display text (arrays and objects as compact JSON), keys sorted.
    public var fields: [Field]
    /// The line as it was read (invalid UTF-8 replaced).
    public var raw: String
    /// The line as report.json holds it: `raw` when it is JSON by RFC 8259 (clipkit's lines
    /// always are), else written again from what was read, so report.json stays JSON that every
    /// reader (and the next run's `--baseline`) takes (see `JSONText.isStrict`).
    public var json: String
    /// The line as the page shows it beside its outputs: one line of JSON without its null
    /// fields, `input` (the clip's heading) and `outputs` (the table's rows); report.json keeps `raw` whole.
    public var shown: String
    /// The file it came from and its 1-based line number.
    public var source: String
    public var lineNumber: Int

    public struct Field: Sendable, Equatable {
        public var key: String
        public var text: String
        public var number: Double?
    }

    /// Nil when `text` is not a JSON object with an `input` string (reported as a warning).
    public init?(text: String, source: String, lineNumber: Int) {
        guard let data = text.data(using: .utf8),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let input = object["input"] as? String else { return nil }
        // A name that is not UTF-8 carries its bytes beside its readable form (clipkit --json).
        if let encoded = object["input_bytes"] as? String, let bytes = Data(base64Encoded: encoded) {
            self.input = FileSystemPath.string(bytes)
        } else {
            self.input = input
        }
        if let encoded = object["outputs_bytes"] as? [Any] {
            outputs = encoded.compactMap { ($0 as? String).flatMap { Data(base64Encoded: $0) }.map { FileSystemPath.string($0) } }
        } else {
            outputs = (object["outputs"] as? [Any])?.compactMap { $0 as? String } ?? []
        }
        status = object["status"] as? String ?? "ok"
        error = object["error"] as? String
        shard = object["shard"] as? String
        warnings = (object["warnings"] as? [Any])?.compactMap { $0 as? String } ?? []
        raw = text
        json = JSONText.isStrict(text) ? text : JSONText.write(object)
        self.source = source
        self.lineNumber = lineNumber
        // No warnings is shown as no field, as null is (every clean line carries `"warnings":[]`).
        let present = object.filter { !($0.value is NSNull) && !($0.key == "warnings" && ($0.value as? [Any])?.isEmpty == true) }
        fields = present.sorted { $0.key < $1.key }.map { Field(key: $0.key, text: Self.displayText($0.value), number: Self.number($0.value)) }
        shown = JSONText.write(present.filter { $0.key != "input" && $0.key != "outputs" })
    }

    /// The field's number, when it is one (not a Bool).
    public func number(_ key: String) -> Double? { fields.first { $0.key == key }?.number }

    public func text(_ key: String) -> String? { fields.first { $0.key == key }?.text }

    /// `info` lines carry `kind` (video or gif) and no outputs.
    public var isInfo: Bool { text("kind") != nil && outputs.isEmpty }

    static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, !isBool(number) else { return nil }
        return number.doubleValue
    }

    /// JSON's true and false (JSONSerialization gives them the `c` type; its numbers are `i`, `q` or `d`).
    static func isBool(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    static func displayText(_ value: Any) -> String {
        switch value {
        case let string as String: return string
        case let number as NSNumber:
            if isBool(number) { return number.boolValue ? "true" : "false" }
            return number.stringValue
        default:
            return JSONText.write(value)
        }
    }
}
