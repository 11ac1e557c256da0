// One-field owner of an AVPacket, so a packet waiting to be written is freed on every path.
@_weakLinked import CFFmpeg
import Foundation

/// An `AVPacket` and its data, freed in `deinit`.
final class EncodedPacket {
    let pointer: UnsafeMutablePointer<AVPacket>

    init(path: String) throws {
        try FFmpegLibraries.load()
        guard let packet = av_packet_alloc() else {
            throw ClipKitError.internalFailure(path: path, reason: "out of memory")
        }
        pointer = packet
    }

    /// A packet holding what `other` held; `other` is left empty.
    convenience init(takingFrom other: EncodedPacket, path: String) throws {
        try self.init(path: path)
        av_packet_move_ref(pointer, other.pointer)
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }
}
