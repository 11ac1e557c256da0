// The lossy (and canvas-aware) half of the LZW encoder: the search for the best string to write.

extension LZWEncoder {
    /// Lossy (or canvas-aware) encoding: at each string start, the best string of the table
    /// that the pixels from there may be written as (see `LZWLossy`).
    func encodeLossy(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, lossy: LZWLossy,
                     emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        for code in 0..<clearCode { suffix[code] = UInt8(code) }
        let mask = UInt8(truncatingIfNeeded: clearCode - 1)
        let palette = lossy.palette
        let paletteCount = palette.count / 3
        let transparent = lossy.transparentIndex ?? -1
        let bound = lossy.bound
        let canvas = lossy.canvas
        let canvasWidth = lossy.canvasWidth
        let imageWidth = max(1, lossy.imageWidth)

        // The RGB of each index (`colors`); the transparent one's, what shows through it, is
        // written from the canvas before each read (`seeThrough`: nil when no index is
        // transparent or the canvas is unknown). `unknown` is the index whose colour cannot be
        // known: the transparent one over an unknown canvas (else none, -1).
        let colors = self.colors
        for i in 0..<256 {
            let p = colors + i * 4
            if i < paletteCount {
                p[0] = Int32(palette[i * 3]); p[1] = Int32(palette[i * 3 + 1]); p[2] = Int32(palette[i * 3 + 2])
            } else {
                p[0] = 0; p[1] = 0; p[2] = 0
            }
        }
        let seeThrough = (0..<256).contains(transparent) ? canvas : nil
        let unknown = canvas == nil ? transparent : -1
        // Canvas offset of the image's pixel `position`.
        @inline(__always) func canvasOffset(_ position: Int) -> Int {
            guard canvas != nil else { return 0 }
            let y = position / imageWidth, x = position - y * imageWidth
            return ((lossy.top + y) * canvasWidth + lossy.left + x) * 3
        }

        let n = indices.count
        // How much error each pixel may take (sixteenths of `bound`); none when nothing may stray.
        let factors = bound > 0 ? ErrorAllowance.factors(indices: indices, mask: mask, lossy: lossy) : []
        // The error of the colours written instead of the wanted ones, spread as dithering spreads it.
        var diffusion = LossyDiffusion(width: imageWidth, isActive: bound > 0)
        var start = 0
        // The first pixel past the rows to report next (`LZWLossy.progress`).
        let reportRows = max(1, lossy.progressRows)
        var nextReport = lossy.progress != nil && canvas != nil ? reportRows * imageWidth : Int.max
        while start < n {
            // Where the string's pixels lie on the canvas: one step on from the first, within its row.
            let startOffset = canvasOffset(start)
            let startX = start % imageWidth
            @inline(__always) func stringOffset(_ k: Int) -> Int {
                startX + k < imageWidth ? startOffset + 3 * k : canvasOffset(start + k)
            }
            let (best, length) = factors.withUnsafeBufferPointer { factors in
                bestString(from: start, indices: indices, mask: mask, bound: bound, factors: factors,
                           seeThrough: seeThrough, transparent: transparent, unknown: unknown,
                           offset: stringOffset, diffusion: diffusion)
            }
            // Write it: what each of its pixels shows, and its code.
            var code = best
            for k in stride(from: length - 1, through: 0, by: -1) {
                path[k] = suffix[code]
                if k > 0 { code = Int(prefix[code]) }
            }
            for k in 0..<length {
                let i = Int(path[k]), position = start + k, o = stringOffset(k)
                if diffusion.isActive {
                    // Its error, passed on (read before the canvas takes what it shows).
                    diffusion.enter(position)
                    let wanted = Int(indices[position] & mask)
                    if wanted != unknown, i != unknown {
                        if let seeThrough, wanted == transparent || i == transparent {
                            setTransparentColor(transparent, from: seeThrough, at: o)
                        }
                        let want = colors + wanted * 4, have = colors + i * 4
                        let inherited = diffusion.inherited(position)
                        diffusion.spread((Int(want[0]) + inherited.0 - Int(have[0]), Int(want[1]) + inherited.1 - Int(have[1]),
                                          Int(want[2]) + inherited.2 - Int(have[2])), at: position)
                    } else {
                        diffusion.spread(nil, at: position)
                    }
                }
                lossy.shown?[position] = path[k]
                if let canvas, i != transparent {
                    // Not the transparent index: its palette colour (or black), 0-255.
                    let shows = colors + i * 4
                    canvas[o] = UInt8(truncatingIfNeeded: shows[0]); canvas[o + 1] = UInt8(truncatingIfNeeded: shows[1])
                    canvas[o + 2] = UInt8(truncatingIfNeeded: shows[2])
                }
            }
            try output(best, emit)
            start += length
            if start >= nextReport, start < n {
                let rows = start / imageWidth
                lossy.progress?(rows)
                nextReport = (rows + reportRows) * imageWidth
            }
            guard start < n else { break }
            // The decoder defines the string just written plus the first pixel of the next.
            let next = Int(indices[start] & mask)
            if nextCode >= Self.maxCode {
                try restart(emit)
                for code in 0..<clearCode { suffix[code] = UInt8(code) }
            } else {
                // (The hash serves only the search's `lookup`, for the unknown index: with none,
                // it stays empty. Its probes were 1% of a lossy encode's time.)
                if unknown >= 0 { insert(best << 8 | next, code: nextCode) }
                suffix[nextCode] = UInt8(next)
                prefix[nextCode] = UInt16(best)
                nextSibling[nextCode] = firstChild[best]
                firstChild[best] = UInt16(nextCode)
                firstChild[nextCode] = Self.none
                nextCode += 1
            }
        }
    }

    /// The code of the best string to write from `start`, and its length: a depth-first walk of
    /// the table from the exact first pixel, through every child whose colour fits the pixel it
    /// would stand for (branching from at most `maxVisits` strings), scored by length less the
    /// weighted error. The wanted pixel's child is followed at once; the others wait on the stack.
    /// `offset` gives the canvas offset of the pixel `k` on from `start`; `factors` scale the
    /// bound pixel by pixel, and inversely each pixel's error in the score (`ErrorAllowance`).
    @inline(__always)
    private func bestString(from start: Int, indices: UnsafeBufferPointer<UInt8>, mask: UInt8, bound: Int,
                            factors: UnsafeBufferPointer<UInt8>, seeThrough: UnsafeMutablePointer<UInt8>?,
                            transparent: Int, unknown: Int, offset: (Int) -> Int,
                            diffusion: borrowing LossyDiffusion) -> (code: Int, length: Int) {
        let n = indices.count
        let root = Int(indices[start] & mask)
        // Score times `bound`: length * bound - lossWeight * loss (integers, no rounding); at
        // bound 0 only colours that are the same fit, and the longest string wins.
        let unit = max(bound, 1)
        var best = root, bestLength = 1
        var bestScore = unit
        // `distance(...) <= bound` and `<= 2 * bound` without the division: on the weighted sum
        // x, floor(x / 3) <= b exactly when x < 3 * b + 3.
        let one = ErrorAllowance.one
        let multipliers = self.multipliers
        let colors = self.colors
        // The table and the stack in locals: through `self`, each use loads them again (a store
        // through any pointer might have changed them).
        let firstChild = self.firstChild, nextSibling = self.nextSibling, suffix = self.suffix
        let waiting = self.waiting
        var depth = 0
        var visits = 0
        // The string being looked at: its code, length, summed error and carried error.
        var node = root, length = 1, loss = 0
        var er = 0, eg = 0, eb = 0
        // Sixteenths of a pixel's error carried to the next pixel of the string (three quarters
        // where nothing is diffused: no loss allowed, only colours the eye cannot tell apart).
        let share = diffusion.isActive ? LossyDiffusion.carriedShare : 12
        let above = diffusion.above(from: start)
        if diffusion.isActive {
            // The first pixel is written as wanted: what it inherits is its error, carried on.
            let e = diffusion.inherited(start)
            (er, eg, eb) = (e.0 * share / 16, e.1 * share / 16, e.2 * share / 16)
        }
        while true {
            if node != best {
                // (Wrapping: a length within the table, a bound of at most `maxLossy` * 10, a
                // summed loss far under 2^50.)
                let score = length &* unit &- Self.lossWeight &* loss
                if score > bestScore { best = node; bestLength = length; bestScore = score }
            }
            var exact = -1
            var exactLoss = 0, exactError = (0, 0, 0)
            let t = start + length
            if t < n {
                let branches = visits < Self.maxVisits
                visits += 1
                // This pixel's bound, and the weight of its error (16 / factor).
                let factor = factors.isEmpty ? one : Int(factors[t])
                let multiplier = multipliers[factor]
                // (Unsigned: both are positive, so the division is a shift.)
                let pixelBound = Int(UInt(bitPattern: bound &* factor) / UInt(one))
                let fits = 3 * pixelBound + 3, fitsAlone = 6 * pixelBound + 3
                let wanted = Int(indices[t] & mask)
                if wanted != unknown {
                    // What shows through the transparent index here, read only where it is
                    // wanted or a child stands for it.
                    if let seeThrough, wanted == transparent { setTransparentColor(transparent, from: seeThrough, at: offset(length)) }
                    let wantColor = colors + wanted * 4
                    let want = (Int(wantColor[0]), Int(wantColor[1]), Int(wantColor[2]))
                    let v = above[length]
                    let tr = want.0 + er + v.0, tg = want.1 + eg + v.1, tb = want.2 + eb + v.2
                    var child = firstChild[node]
                    while child != Self.none {
                        let c = Int(child)
                        let s = Int(suffix[c])
                        child = nextSibling[c]
                        if s == wanted { exact = c; continue }
                        guard branches, s != unknown else { continue }
                        if s == transparent, let seeThrough { setTransparentColor(transparent, from: seeThrough, at: offset(length)) }
                        let h = colors + s * 4
                        let have = (Int(h[0]), Int(h[1]), Int(h[2]))
                        // Wrapping arithmetic, truncating conversions: differences of a few
                        // thousand at most (see `weightedSquare`), a share of at most 12 sixteenths,
                        // a length within the table (4096).
                        let dr = tr &- have.0, dg = tg &- have.1, db = tb &- have.2
                        let weighted = Self.weightedSquare(dr, dg, db)
                        guard weighted < fits else { continue }
                        let rr = want.0 &- have.0, rg = want.1 &- have.1, rb = want.2 &- have.2
                        guard Self.weightedSquare(rr, rg, rb) < fitsAlone else { continue }
                        let d = ErrorAllowance.scaled(weighted / 3, by: factor, multiplier: multiplier)
                        waiting[depth] = Waiting(code: Int32(truncatingIfNeeded: c), length: Int32(truncatingIfNeeded: length &+ 1),
                                                 loss: Int32(clamping: loss + d),
                                                 error: (Int32(truncatingIfNeeded: dr &* share / 16), Int32(truncatingIfNeeded: dg &* share / 16),
                                                         Int32(truncatingIfNeeded: db &* share / 16)))
                        depth += 1
                    }
                    if exact >= 0 {
                        let dr = tr - want.0, dg = tg - want.1, db = tb - want.2
                        if dr | dg | db == 0 {
                            // No error to take or carry (most pixels of a flat area).
                            exactLoss = loss
                        } else {
                            exactLoss = loss + ErrorAllowance.scaled(Self.distance(dr, dg, db), by: factor, multiplier: multiplier)
                            exactError = (dr &* share / 16, dg &* share / 16, db &* share / 16)
                        }
                    }
                } else if let code = lookup(node << 8 | wanted) {
                    // Transparent over an unknown canvas: only itself will do.
                    exact = code
                    exactLoss = loss
                }
            }
            if exact >= 0 {
                node = exact
                length += 1
                loss = exactLoss
                (er, eg, eb) = exactError
                continue
            }
            guard depth > 0 else { break }
            depth -= 1
            let next = waiting[depth]
            node = Int(next.code)
            length = Int(next.length)
            loss = Int(next.loss)
            (er, eg, eb) = (Int(next.error.0), Int(next.error.1), Int(next.error.2))
        }
        return (best, bestLength)
    }

    /// Makes the transparent index's entry of `colors` what shows through at canvas offset `o`.
    @inline(__always)
    private func setTransparentColor(_ transparent: Int, from canvas: UnsafeMutablePointer<UInt8>, at o: Int) {
        let p = colors + transparent * 4
        p[0] = Int32(canvas[o]); p[1] = Int32(canvas[o + 1]); p[2] = Int32(canvas[o + 2])
    }

    /// The squared distance of a colour difference, weighted 3:4:2 as `Palette.distance` is and
    /// scaled back to plain RGB's (a grey step counts as before): green errors show most, blue
    /// least. Against plain squared RGB it took 1.3-2.5% off the bytes at equal SSIMULACRA2 on
    /// the four bench clips (--quality 25-95).
    @inline(__always)
    static func distance(_ dr: Int, _ dg: Int, _ db: Int) -> Int {
        weightedSquare(dr, dg, db) / 3
    }

    /// 3 dr² + 4 dg² + 2 db², three times `distance` before rounding down. Wrapping arithmetic:
    /// the differences are at most a few thousand (colours of 0-255, an error carried along the
    /// string that its share, at most three quarters, bounds to 765, and what is diffused from
    /// above, bounded by `LossyDiffusion.largestError`), far from overflowing.
    @inline(__always)
    static func weightedSquare(_ dr: Int, _ dg: Int, _ db: Int) -> Int {
        3 &* dr &* dr &+ 4 &* dg &* dg &+ 2 &* db &* db
    }
}
