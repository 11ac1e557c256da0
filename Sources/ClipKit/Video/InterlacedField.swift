// An interlaced picture seen as its first field alone: deinterlacing by dropping a field.
@_weakLinked import CFFmpeg

/// Interlaced video (DV, broadcast MPEG-2 and H.264, AVCHD's 1080i) weaves two fields, taken
/// 1/50 or 1/60 s apart, into one frame: anything that moves is drawn twice, in combs of
/// alternating lines. Scaled as a frame, the combs survive at full size and blur into a ghosted
/// double image when scaled down. ffmpegthumbnailer runs such frames through yadif; the ffmpeg
/// recipes do nothing. clipkit scales from the frame's first field alone (every other row,
/// each plane), which is the picture at the frame's time: no combs, no ghosts, and nothing
/// lost where the output has at most half the frame's rows (a GIF 480 wide of 1080i, a
/// 320-pixel thumbnail of DV). A larger output is interpolated from the field's rows, as a bob
/// deinterlacer does.
enum InterlacedField {
    /// `frame` as its first field (the top one when the top field comes first, else the
    /// bottom one): the same buffers, each plane read from its first or second row with twice
    /// the stride, half the height rounded down to whole chroma rows. Nil when the frame is not
    /// interlaced, or is of a kind whose rows are not plain planes (paletted, bitstream,
    /// hardware), or too short to have two fields.
    /// The copy borrows `frame`'s buffers: it is valid only while `frame` is.
    static func firstField(of frame: AVFrame) -> AVFrame? {
        var frame = frame
        guard ck_frame_interlaced(&frame) != 0,
              let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: frame.format)) else { return nil }
        let excluded = UInt64(AV_PIX_FMT_FLAG_PAL) | UInt64(AV_PIX_FMT_FLAG_BITSTREAM) | UInt64(AV_PIX_FMT_FLAG_HWACCEL)
        guard descriptor.pointee.flags & excluded == 0 else { return nil }
        let planes = Int(av_pix_fmt_count_planes(AVPixelFormat(rawValue: frame.format)))
        // Whole chroma rows per field: a field of an odd number of rows would read a chroma row
        // past the plane's last.
        let chromaRows = Int32(1) << Int32(descriptor.pointee.log2_chroma_h)
        let height = frame.height / 2 / chromaRows * chromaRows
        guard (1...4).contains(planes), height >= 2 else { return nil }
        let bottom = ck_frame_top_field_first(&frame) == 0
        withUnsafeMutablePointer(to: &frame.data) { data in
            withUnsafeMutablePointer(to: &frame.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { linesize in
                        for plane in 0..<planes {
                            if bottom { data[plane] = data[plane].map { $0 + Int(linesize[plane]) } }
                            linesize[plane] *= 2
                        }
                    }
                }
            }
        }
        frame.height = height
        return frame
    }
}
