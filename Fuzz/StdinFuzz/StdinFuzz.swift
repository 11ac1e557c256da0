// libFuzzer target: bytes through the standard-input path (`clipkit thumb -`), a pipe written in fuzzer-chosen chunks.
import ClipKit
import FuzzDriver
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One private directory per fuzzer process, emptied after every input.
private let directory: String = {
    let path = "/dev/shm/clipkit-fuzz-stdin-\(getpid())"
    mkdir(path, 0o700)
    return path
}()

/// Byte 0 picks the writer's chunk size (1...256 bytes, so the first bytes the spool sniffs often
/// arrive split); the rest is the stream. The spooled file must hold exactly the stream, then it
/// goes through the thumbnailer as `clipkit thumb -` sends it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStandardInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    signal(SIGPIPE, SIG_IGN)
    let chunk = 1 + Int(data[0])
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return 0 }
    // The writer is waited for before this input returns; a full pipe blocks it until the spool reads.
    let (readEnd, writeEnd) = (ends[0], ends[1])
    let done = DispatchSemaphore(value: 0)
    let writer = Thread {
        var offset = 0
        while offset < stream.count {
            let count = min(chunk, stream.count - offset)
            let written = stream.withUnsafeBytes { write(writeEnd, $0.baseAddress! + offset, count) }
            if written <= 0 { break }
            offset += written
        }
        close(writeEnd)
        done.signal()
    }
    writer.start()
    defer {
        // Closed first: a writer stuck on a full pipe (the spool gave up) then fails with EPIPE.
        close(readEnd)
        done.wait()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            unlink(directory + "/" + name)
        }
    }
    let path: String
    do {
        path = try StreamSpool.copy(from: readEnd, into: directory, timeout: 5, maxBytes: 1 << 20)
    } catch {
        precondition(stream.isEmpty, "spool failed on \(stream.count) bytes: \(error.reason)")
        return 0
    }
    let copied = FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    precondition(copied == stream, "the spooled file differs from the stream (\(copied?.count ?? -1) of \(stream.count) bytes)")
    var options = ThumbnailOptions(size: .fit(width: 64, height: 64))
    options.limits.maxPixels = 1 << 20
    options.limits.maxDecodedPixels = 1 << 24
    options.limits.timeout = 2
    _ = try? Thumbnailer(options: options).thumbnail(of: URL(fileURLWithPath: path))
    return 0
}

@main
enum Entry {
    static func main() { runFuzzer(fuzzStandardInput) }
}
