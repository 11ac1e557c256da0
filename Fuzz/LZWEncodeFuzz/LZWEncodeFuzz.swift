// libFuzzer target: fuzzer-given indices through the LZW encoder (exact and lossy), decoded back with LZWDecoder.
@testable import ClipKit
import FuzzDriver

/// Bytes: minimum code size, lossy level, image width, then the indices. Exact data must decode
/// to the masked indices; lossy data to indices whose colours stay within twice the bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLZW(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 3 else { return 0 }
    let codeSize = 2 + Int(data[0]) % 7
    let level = Int(data[1]) % 201
    let width = 1 + Int(data[2]) % 64
    let mask = UInt8(truncatingIfNeeded: (1 << codeSize) - 1)
    let indices = (3..<size).map { data[$0] & mask }
    // A fixed palette with near and far colours, so the lossy search has choices to make.
    var palette = [UInt8](repeating: 0, count: 768)
    for i in 0..<256 {
        let green: Int = (i * 7) & 255, blue: Int = (i * 3 / 2) & 255
        palette[i * 3] = UInt8(i)
        palette[i * 3 + 1] = UInt8(green)
        palette[i * 3 + 2] = UInt8(blue)
    }
    var shown = [UInt8](repeating: 0, count: indices.count)
    var encoded: [UInt8] = []
    let encoder = LZWEncoder()
    let bound = LZWLossy.bound(forLevel: level)
    palette.withUnsafeBufferPointer { colours in
        shown.withUnsafeMutableBufferPointer { record in
            indices.withUnsafeBufferPointer { input in
                var lossy = LZWLossy(palette: colours, bound: bound, transparentIndex: nil)
                lossy.imageWidth = width
                lossy.shown = record.baseAddress
                try! encoder.encode(input, minimumCodeSize: codeSize, lossy: level == 0 ? nil : lossy) { encoded += $0 }
            }
        }
    }
    // The code size byte, sub-blocks, the terminator: fed to the decoder block by block.
    precondition(encoded.first == UInt8(codeSize) && encoded.last == 0)
    let decoder = LZWDecoder()
    decoder.reset(minimumCodeSize: codeSize)
    var decoded = [UInt8](repeating: 0, count: indices.count)
    var at = 1
    while at < encoded.count, encoded[at] != 0 {
        let length = Int(encoded[at])
        precondition(at + 1 + length < encoded.count, "sub-block runs past the data")
        encoded.withUnsafeBufferPointer { bytes in
            decoded.withUnsafeMutableBufferPointer { output in
                decoder.decode(UnsafeBufferPointer(rebasing: bytes[(at + 1)..<(at + 1 + length)]), into: output)
            }
        }
        at += 1 + length
    }
    precondition(at == encoded.count - 1, "data after the terminator")
    precondition(decoder.state == .ended && decoder.position == indices.count && !decoder.producedExcess,
                 "decoded \(decoder.position) of \(indices.count), state \(decoder.state)")
    if level == 0 {
        precondition(decoded == indices, "exact encoding does not round-trip")
    } else {
        precondition(decoded == shown, "recorded indices differ from the data")
        for (wanted, got) in zip(indices, decoded) {
            var distance = 0
            for c in 0..<3 {
                let a: Int = Int(palette[Int(wanted) * 3 + c]), b: Int = Int(palette[Int(got) * 3 + c])
                distance += (a - b) * (a - b)
            }
            precondition(distance <= 2 * bound, "pixel strays \(distance), bound \(2 * bound)")
        }
    }
    return 0
}

@main
enum Entry {
    static func main() { runFuzzer(fuzzLZW) }
}
