// HDR (PQ or HLG, BT.2020) to SDR BT.709: the operator of ffmpeg's `zscale=t=linear:npl=100,zscale=p=bt709,tonemap=hable,zscale=t=bt709`.
@_weakLinked import CFFmpeg
import Foundation

/// Maps 16-bit non-linear BT.2020 RGB (PQ or HLG) to 8-bit BT.709 RGB, so HDR clips do not come
/// out washed out or dark. Follows libavfilter's `tonemap` filter: light normalised to 100 cd/m²
/// (reference white), primaries converted to BT.709 in linear light, overbright colours
/// desaturated (desat 2), then Hable's filmic curve on the brightest component, scaled by the
/// signal peak (content light level, mastering display, else 1000 cd/m²),
/// and the BT.709 display transfer (BT.1886).
struct ToneMapper {
    enum Transfer: Equatable {
        case pq
        case hlg
    }

    let transfer: Transfer
    /// Signal peak relative to reference white (100 cd/m²).
    let peak: Float
    /// Linear light (relative to 100 cd/m²) of each 16-bit code value.
    private let linear: [Float]
    /// BT.709 OETF of linear 0...1 in 4096 steps, to 8 bits.
    private let encode: [UInt8]
    private let hablePeak: Float

    /// The transfer of an HDR frame, nil for SDR.
    static func transfer(of frame: AVFrame) -> Transfer? {
        switch frame.color_trc {
        case AVCOL_TRC_SMPTE2084: return .pq
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        default: return nil
        }
    }

    /// The signal peak as libavfilter's `zscale=t=linear,tonemap` chain determines it: MaxCLL,
    /// else the mastering display's maximum luminance, else 1000 cd/m² for PQ as for HLG (the
    /// tonemap filter then sees linear light, not PQ, and assumes a 1000 cd/m² display, as
    /// Chromium does for HDR10 without metadata; PQ's nominal 10,000 made such clips about 15
    /// levels too dark).
    static func peak(of frame: UnsafePointer<AVFrame>, transfer: Transfer) -> Float {
        let reference: Float = 100
        if let data = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL) {
            let level = UnsafeRawPointer(data.pointee.data).assumingMemoryBound(to: AVContentLightMetadata.self).pointee
            if level.MaxCLL > 0 { return Float(level.MaxCLL) / reference }
        }
        if let data = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA) {
            let display = UnsafeRawPointer(data.pointee.data).assumingMemoryBound(to: AVMasteringDisplayMetadata.self).pointee
            if display.has_luminance != 0, display.max_luminance.den > 0, display.max_luminance.num > 0 {
                return Float(display.max_luminance.num) / Float(display.max_luminance.den) / reference
            }
        }
        return 10
    }

    init(transfer: Transfer, peak: Float) {
        self.transfer = transfer
        self.peak = max(peak, 1)
        linear = (0..<65536).map { Self.toLinear(Float($0) / 65535, transfer) }
        // Display light back to a BT.709 signal through the inverse of BT.1886 (gamma 2.4), as
        // zimg's "bt709" transfer does: the picture a BT.709 display then shows is the mapped light.
        encode = (0..<4096).map { i in
            let v = pow(Float(i) / 4095, 1 / 2.4)
            return UInt8(max(0, min(255, (v * 255).rounded())))
        }
        hablePeak = Self.hable(self.peak)
    }

    /// Non-linear 0...1 to linear light relative to 100 cd/m².
    static func toLinear(_ e: Float, _ transfer: Transfer) -> Float {
        switch transfer {
        case .pq:
            // SMPTE ST 2084 EOTF: 0...1 maps to 0...10000 cd/m².
            let m1: Float = 0.1593017578125, m2: Float = 78.84375
            let c1: Float = 0.8359375, c2: Float = 18.8515625, c3: Float = 18.6875
            let p = pow(max(e, 0), 1 / m2)
            return pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1) * 10000 / 100
        case .hlg:
            // ARIB STD-B67 inverse OETF to scene light, then the OOTF of a 1000 cd/m² display
            // (system gamma 1.2; applied per component here, a close approximation).
            let a: Float = 0.17883277, b: Float = 0.28466892, c: Float = 0.55991073
            let scene = e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
            return pow(scene, 1.2) * 1000 / 100
        }
    }

    @inline(__always)
    static func hable(_ x: Float) -> Float {
        let a: Float = 0.15, b: Float = 0.50, c: Float = 0.10, d: Float = 0.20, e: Float = 0.02, f: Float = 0.30
        return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f
    }

    /// Converts `count` pixels of RGB48 (little-endian 16-bit, this machine's order) into RGBA8.
    func map(_ source: UnsafePointer<UInt16>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
        // BT.2020 to BT.709 primaries, in linear light.
        let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float) =
            (1.6605, -0.5876, -0.0728, -0.1246, 1.1329, -0.0083, -0.0182, -0.1006, 1.1187)
        // libavfilter takes luma with the frame's matrix coefficients, still BT.2020 here.
        let (kr, kg, kb): (Float, Float, Float) = (0.2627, 0.6780, 0.0593)
        let desat: Float = 2
        linear.withUnsafeBufferPointer { linear in
            encode.withUnsafeBufferPointer { encode in
                for i in 0..<count {
                    let r0 = linear[Int(source[i &* 3])], g0 = linear[Int(source[i &* 3 &+ 1])], b0 = linear[Int(source[i &* 3 &+ 2])]
                    // Out-of-gamut components stay negative until the end, as in libavfilter.
                    var r = m.0 * r0 + m.1 * g0 + m.2 * b0
                    var g = m.3 * r0 + m.4 * g0 + m.5 * b0
                    var b = m.6 * r0 + m.7 * g0 + m.8 * b0
                    // Desaturate overbright colours towards their luma, as libavfilter does.
                    let luma = kr * r + kg * g + kb * b
                    let overbright = max(luma - desat, 1e-6) / max(luma, 1e-6)
                    r += (luma - r) * overbright
                    g += (luma - g) * overbright
                    b += (luma - b) * overbright
                    let signal = max(r, g, b, 1e-6)
                    let scale = (Self.hable(signal) / hablePeak) / signal
                    let o = i &* 4
                    target[o] = encode[Int(min(max(r * scale, 0), 1) * 4095)]
                    target[o &+ 1] = encode[Int(min(max(g * scale, 0), 1) * 4095)]
                    target[o &+ 2] = encode[Int(min(max(b * scale, 0), 1) * 4095)]
                    target[o &+ 3] = 255
                }
            }
        }
    }
}
