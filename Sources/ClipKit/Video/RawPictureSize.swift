// The bytes a raw video packet must hold for a whole picture, so a picture cut short is never decoded.
@_weakLinked import CFFmpeg

/// How many bytes a packet of a raw video stream (FFmpeg's `rawvideo` codec: uncompressed
/// pictures in AVI, MOV, NUT, Matroska) holds at least for one whole picture. FFmpeg's decoder
/// takes a shorter one (the last packet of a truncated file) and copies it into a buffer of the
/// whole picture's size, leaving the rest as the allocator left it: the pictures then depended
/// on what the heap held (a PAL8 AVI cut at 50% gave three different GIFs alone, after two
/// other inputs, and with `--jobs 2`; valgrind reported uninitialised reads in `sws_scale`).
enum RawPictureSize {
    /// The fewest bytes of a whole picture of the stream `parameters` describe; nil when it is
    /// not raw video or its size is unknown. The tightly packed size: the picture's planes
    /// without row padding (and without the palette that a PAL8 packet does not carry), or
    /// the rows of `bits_per_coded_sample` bits a pixel when that is less (1-, 2- and 4-bit
    /// pictures unpacked to PAL8). Padded rows only make a packet larger.
    static func bytes(of parameters: AVCodecParameters) -> Int? {
        guard parameters.codec_id == AV_CODEC_ID_RAWVIDEO, parameters.width > 0, parameters.height > 0 else { return nil }
        let width = Int(parameters.width), height = Int(parameters.height)
        let format = AVPixelFormat(rawValue: parameters.format)
        var bytes = Int.max
        let image = Int(av_image_get_buffer_size(format, parameters.width, parameters.height, 1))
        if image > 0, let descriptor = av_pix_fmt_desc_get(format) {
            bytes = image - (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0 ? Int(AVPALETTE_SIZE) : 0)
        }
        let bits = Int(parameters.bits_per_coded_sample)
        // Without a known pixel format the container's bits a pixel are trusted only for
        // paletted pictures: a QuickTime 2vuy (4:2:2, 16 bits) says 24, and unprobed, every
        // whole picture was taken for one cut short (`thumb` and `storyboard` refused the file).
        if bits > 0 && (image > 0 || bits <= 8) {
            let (row, rowOverflow) = width.multipliedReportingOverflow(by: bits)
            let (packed, overflow) = ((row + 7) / 8).multipliedReportingOverflow(by: height)
            if !rowOverflow && !overflow { bytes = min(bytes, packed) }
        }
        return bytes > 0 && bytes < Int.max ? bytes : nil
    }
}
