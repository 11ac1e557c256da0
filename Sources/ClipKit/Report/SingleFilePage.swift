// --single-file: index.html with its CSS, script and media inlined, for a CI artifact uploaded as one file.
import Foundation

/// One HTML file a browser opens straight from an artifact (`upload-artifact` with
/// `archive: false`). Its style and script are inline, so unlike the report directory it is not
/// meant for a host with a strict Content-Security-Policy. Media become `data:` URLs while they
/// fit in `maxInline` bytes; beyond that only the cards' posters are inlined. Each file's bytes
/// are in the page once (`InlineMedia`), shown by its elements through a small script.
struct SingleFilePage {
    let directory: URL
    let maxInline: Int
    /// The directory the page is written to: what stays a link (media beyond `maxInline`) is
    /// linked from there, so the page works where it is written (its links were relative to the
    /// report directory: opened beside it, every GIF beyond the cap was a broken image).
    var location: URL?

    func html(from page: String) -> String {
        var html = page
        html = html.replacingOccurrences(of: "<link rel=\"icon\" href=\"report.svg\" type=\"image/svg+xml\">\n", with: "")
        html = html.replacingOccurrences(of: "<link rel=\"stylesheet\" href=\"report.css\">", with: "<style>\n\(ReportStyle.source)</style>")
        html = html.replacingOccurrences(of: "<script src=\"report.js\" defer></script>\n", with: "")
        // The page's scripts run once the document is parsed: at the end of the body (the media's first).
        html = html.replacingOccurrences(of: "</body>", with: "<script>\n\(InlineMedia.script)</script>\n<script>\n\(ReportScript.source)</script>\n</body>")
        // Each file counted once: its bytes are in the page once (`InlineMedia`).
        var sizes: [String: Int] = [:]
        for reference in Self.references(in: html) {
            guard let url = file(reference) else { continue }
            sizes[reference] = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) * 4 / 3
        }
        let total = sizes.values.reduce(0, +)
        let posters = total <= maxInline ? nil : Set(Self.posterReferences(in: html))
        // Never more than `maxInline` in all, posters included, each file read no further than
        // what is left: a run line naming a 3 GB output took the page's memory to 15 GB (the
        // posters-only fallback read each poster whole, whatever its size).
        var urls: [String: String] = [:]
        var left = maxInline
        for reference in sizes.keys.sorted() where posters?.contains(reference) ?? true {
            guard let size = sizes[reference], size <= left, let url = file(reference),
                  let data = FileSystemPath.contentsOfRegularFile(url.path, limit: left * 3 / 4), data.count <= left * 3 / 4 else { continue }
            let encoded = "data:\(Self.mimeType(url));base64,\(data.base64EncodedString())"
            left -= encoded.utf8.count
            urls[reference] = encoded
        }
        html = InlineMedia(urls: urls).apply(to: html)
        if let location, let prefix = Self.link(from: location, to: directory), !prefix.isEmpty {
            for reference in Self.references(in: html) {
                html = html.replacingOccurrences(of: "\"\(reference)\"", with: "\"\(prefix)/\(reference)\"")
            }
        }
        return html
    }

    /// A relative URL path from directory `from` to directory `to` ("" when they are one), its
    /// names percent-encoded; nil when it cannot be spelled.
    static func link(from: URL, to: URL) -> String? {
        let a = from.standardizedFileURL.pathComponents, b = to.standardizedFileURL.pathComponents
        var shared = 0
        while shared < min(a.count, b.count), a[shared] == b[shared] { shared += 1 }
        let up = Array(repeating: "..", count: a.count - shared)
        let down = b[shared...].map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#"))) }
        guard !down.contains(nil) else { return nil }
        return (up + down.compactMap { $0 }).joined(separator: "/")
    }

    /// The regular file a relative reference names, if it is one.
    private func file(_ reference: String) -> URL? {
        guard let path = reference.removingPercentEncoding else { return nil }
        let url = directory.appendingPathComponent(path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        return url
    }

    /// Every quoted relative file reference in an attribute (storyboard sheets included: they are `<img>`s).
    static func references(in html: String) -> [String] {
        var found = Set<String>()
        for attribute in InlineMedia.attributes {
            for piece in html.components(separatedBy: " \(attribute)=\"").dropFirst() {
                let value = String(piece.prefix { $0 != "\"" })
                if !value.isEmpty && !value.hasPrefix("#") && !value.contains(":") { found.insert(value) }
            }
        }
        return found.sorted()
    }

    static func posterReferences(in html: String) -> [String] {
        html.components(separatedBy: "<img class=\"poster\" src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    static func mimeType(_ url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "mp4": return "video/mp4"
        case "svg": return "image/svg+xml"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
