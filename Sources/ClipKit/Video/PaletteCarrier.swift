// Keeps a paletted stream's palette across seeks: demuxers send it once, as side data of a packet.
@_weakLinked import CFFmpeg

/// AVI and QuickTime demuxers hand an 8-bit stream's palette (from the header, or a change)
/// to the decoder as side data of one packet, the first. A seek skips that packet, and the
/// decoder then draws with a palette of zeros: black, and fully transparent where the zero
/// fourth byte is taken for alpha. The carrier remembers the last palette that went by and
/// gives it to the first packet sent after each seek.
struct PaletteCarrier {
    private var palette: [UInt8]?
    private var owed = false

    /// Whether `stream` can carry a palette: decoded to PAL8, or (headers only) 8 bits or fewer a pixel.
    static func applies(to stream: UnsafeMutablePointer<AVStream>) -> Bool {
        let parameters = stream.pointee.codecpar.pointee
        return parameters.format == AV_PIX_FMT_PAL8.rawValue || (1...8).contains(parameters.bits_per_coded_sample)
    }

    /// Reads the stream's first packets (where demuxers put the header palette) up to the first
    /// of the stream, keeping its palette. The demuxer must be rewound or sought afterwards.
    mutating func prime(format: UnsafeMutablePointer<AVFormatContext>, streamIndex: Int32, packet: UnsafeMutablePointer<AVPacket>) {
        for _ in 0..<64 {
            guard av_read_frame(format, packet) >= 0 else { return }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index == streamIndex {
                note(packet)
                return
            }
        }
    }

    /// After a seek: the next packet gets the palette.
    mutating func seeked() {
        owed = palette != nil
    }

    /// Remembers the palette `packet` carries, or gives it the one owed.
    mutating func pass(_ packet: UnsafeMutablePointer<AVPacket>) {
        if note(packet) {
            owed = false
            return
        }
        guard owed, let palette else { return }
        owed = false
        guard let data = av_packet_new_side_data(packet, AV_PKT_DATA_PALETTE, palette.count) else { return }
        palette.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: palette.count) }
    }

    @discardableResult
    private mutating func note(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        var size = 0
        guard let data = av_packet_get_side_data(packet, AV_PKT_DATA_PALETTE, &size), size == Int(AVPALETTE_SIZE) else { return false }
        palette = Array(UnsafeBufferPointer(start: data, count: size))
        return true
    }
}
