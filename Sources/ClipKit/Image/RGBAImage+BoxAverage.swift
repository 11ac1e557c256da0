// Averaging a picture over whole boxes: a cheap, exact downscale by whole factors.

extension RGBAImage {
    /// This image averaged over `fx` x `fy` boxes, all four channels, the last row and column of
    /// boxes over what is there; the image itself at 1 x 1.
    func boxAveraged(across fx: Int, down fy: Int) -> RGBAImage {
        if fx == 1 && fy == 1 { return self }
        let (w, h) = (width, height)
        let (ow, oh) = ((w + fx - 1) / fx, (h + fy - 1) / fy)
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        var sums = [Int](repeating: 0, count: ow * 4)
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                sums.withUnsafeMutableBufferPointer { sum in
                    for by in 0..<oh {
                        sum.update(repeating: 0)
                        let rows = min(fy, h - by * fy)
                        for y in (by * fy)..<(by * fy + rows) {
                            // Wrapping sums: at most 255 * fx * fy per channel, far from overflow.
                            for x in 0..<w {
                                let i = (y &* w &+ x) &* 4, b = (x / fx) &* 4
                                sum[b] &+= Int(p[i]); sum[b &+ 1] &+= Int(p[i &+ 1])
                                sum[b &+ 2] &+= Int(p[i &+ 2]); sum[b &+ 3] &+= Int(p[i &+ 3])
                            }
                        }
                        for bx in 0..<ow {
                            let count = rows * min(fx, w - bx * fx), b = bx * 4, at = (by * ow + bx) * 4
                            for c in 0..<4 { o[at + c] = UInt8((sum[b + c] + count / 2) / count) }
                        }
                    }
                }
            }
        }
        return RGBAImage(width: ow, height: oh, pixels: out)
    }
}
