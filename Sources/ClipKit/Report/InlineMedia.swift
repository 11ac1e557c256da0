// --single-file's media: each inlined file's bytes once in the page, shared by every element that shows or links it.
import Foundation

/// A GIF is named by its card (`data-anim`), its section's image and its outputs-table link, a
/// poster by up to five attributes: written as a `data:` URL in each, a 3 MB run made a 13 MB
/// page. Here each file's `data:` URL is written once, as the `src` of the first element that
/// shows it (so without script the cards' posters and the sections' GIFs still show), marked
/// `data-media="REF"`; a file no element shows (a storyboard's `.vtt`, `frames.json`) goes in one
/// JSON block instead. Every other attribute naming it becomes `data-inline-NAME="REF"`, which
/// `script` turns back into the attribute, sharing the one string, before report.js runs.
struct InlineMedia {
    /// The attributes that name files (`SingleFilePage.references` reads the same ones).
    static let attributes = ["src", "srcset", "href", "data-anim", "data-poster", "poster"]
    static let blockID = "clipkit-media"

    /// The reference (as the page spells it) of each file inlined, and its `data:` URL.
    let urls: [String: String]

    /// `html` with each file in `urls` written once; the references of those no `src` shows are
    /// in a JSON block at the end of the body.
    func apply(to html: String) -> String {
        var out = ""
        out.reserveCapacity(html.utf8.count + urls.values.reduce(0) { $0 + $1.utf8.count })
        var held = Set<String>()
        var rest = Substring(html)
        while let (attribute, range) = Self.nextAttribute(in: rest) {
            out += rest[..<range.lowerBound]
            let valueStart = range.upperBound
            guard let close = rest[valueStart...].firstIndex(of: "\"") else { break }
            let reference = String(rest[valueStart..<close])
            if let url = urls[reference] {
                if attribute == "src" && held.insert(reference).inserted {
                    out += " src=\"\(url)\" data-media=\"\(reference)\""
                } else {
                    out += " data-inline-\(attribute)=\"\(reference)\""
                }
            } else {
                out += rest[range.lowerBound...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        let unheld = urls.keys.filter { !held.contains($0) }.sorted()
        guard !unheld.isEmpty else { return out }
        let entries = unheld.map { "\"\($0)\":\"\(urls[$0]!)\"" }.joined(separator: ",\n")
        let block = "<script type=\"application/json\" id=\"\(Self.blockID)\">{\(ReportEscaping.jsonForScript(entries))}</script>\n"
        guard let end = out.range(of: "</body>", options: .backwards) else { return out + block }
        return out.replacingCharacters(in: end.lowerBound..<end.lowerBound, with: block)
    }

    /// The first ` NAME="` of `attributes` in `text`: the name and the range up to its value.
    private static func nextAttribute(in text: Substring) -> (String, Range<Substring.Index>)? {
        let bytes = text.utf8
        var index = bytes.startIndex
        while let space = bytes[index...].firstIndex(of: UInt8(ascii: " ")) {
            let after = bytes.index(after: space)
            for (attribute, pattern) in patterns where bytes[after...].starts(with: pattern) {
                return (attribute, space..<bytes.index(after, offsetBy: pattern.count))
            }
            index = after
        }
        return nil
    }

    private static let patterns = attributes.map { ($0, Array("\($0)=\"".utf8)) }

    /// Runs before report.js: gives every `data-inline-NAME` element its attribute back from the
    /// element holding the file or the JSON block. A link gets a `blob:` URL when followed
    /// (browsers refuse to open a `data:` URL as a page).
    static let script = #"""
    // clipkit report --single-file: each file's bytes are in the page once; the elements that share them get them here.
    (function () {
      'use strict';
      var media = {};
      var block = document.getElementById('clipkit-media');
      if (block) { media = JSON.parse(block.textContent); }
      Array.prototype.forEach.call(document.querySelectorAll('[data-media]'), function (el) {
        media[el.getAttribute('data-media')] = el.getAttribute('src');
      });
      function blobURL(url) {
        var comma = url.indexOf(',');
        var bytes = atob(url.slice(comma + 1));
        var array = new Uint8Array(bytes.length);
        for (var i = 0; i < bytes.length; i++) { array[i] = bytes.charCodeAt(i); }
        return URL.createObjectURL(new Blob([array], { type: url.slice(5, url.indexOf(';')) }));
      }
      ['src', 'srcset', 'href', 'data-anim', 'data-poster', 'poster'].forEach(function (name) {
        Array.prototype.forEach.call(document.querySelectorAll('[data-inline-' + name + ']'), function (el) {
          var url = media[el.getAttribute('data-inline-' + name)];
          if (url === undefined) { return; }
          el.setAttribute(name, url);
          if (name === 'href') {
            el.addEventListener('click', function () { el.setAttribute('href', blobURL(url)); }, { once: true });
          }
        });
      });
    })();

    """#
}
