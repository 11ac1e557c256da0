// SSIMULACRA2, the JPEG XL project's perceptual image metric, on two pictures of one size.
import Foundation

/// SSIMULACRA2 (Jon Sneyers, Cloudinary; the 2023 weights of libjxl's tools/ssimulacra2.cc) of a
/// distorted picture against its reference: 100 for identical pictures, about 90 visually
/// lossless, 70 high quality, 50 medium, 30 low, and below 0 for very strong distortion.
///
/// Both pictures go to linear light and, at six scales (1:1 to 1:32, halved in linear light),
/// to XYB, scaled to about 0...1 per channel. Per scale and channel three error maps are made
/// with a Gaussian blur of sigma 1.5: 1 - SSIM (without SSIM's luminance denominator), edges
/// the distorted picture has where the reference is smooth (ringing, banding, blocks) and edges
/// it lost (blur, smearing); each is summarised by its mean and its 4-norm, a weighted sum of the
/// 108 figures is mapped to the score. As in libjxl, a scale is measured while the one before it
/// was at least 8 pixels on each side, and the weights are taken in order over the scales
/// measured, so pictures under 8 pixels on a side have no score.
enum SSIMULACRA2 {
    static let scales = 6

    /// The weights per channel (X, Y, B) and scale: 1-norms of 1 - SSIM, ringing, lost detail,
    /// then their 4-norms.
    static let weights: [Double] = [
        0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0,  // X 1:1
        0.0, 0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,  // X 1:2
        0.0, 0.0016406437456599754, 0.0, 1.8422455520539298, 11.441172603757666, 0.0,  // X 1:4
        0.0007989109436015163, 0.000176816438078653, 0.0, 1.8787594979546387, 10.94906990605142, 0.0,  // X 1:8
        0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053,  // X 1:16
        0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398, 0.0, 0.0,  // X 1:32
        0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,  // Y 1:1
        0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,  // Y 1:2
        225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,  // Y 1:4
        176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,  // Y 1:8
        0.0, 0.0, 0.0, 34.77906344483772, 44.835625328877896, 0.0,  // Y 1:16
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0,  // Y 1:32
        0.0, 0.0008680556573291698, 0.0, 0.0, 0.0, 0.0,  // B 1:1
        0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0,  // B 1:2
        0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0,  // B 1:4
        0.0020827005846636437, 0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0,  // B 1:8
        95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379,  // B 1:16
        0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,  // B 1:32
    ]

    /// The score of `distorted` against `reference` (same size); nil when under 8 pixels on a side.
    static func score(reference: RGBAImage, distorted: RGBAImage, workspace: SSIMULACRA2Workspace? = nil) -> Double? {
        score(reference: LinearRGBImage(reference), distorted: LinearRGBImage(distorted), workspace: workspace)
    }

    /// The score of two linear-light pictures of the same size; nil when under 8 pixels on a side.
    /// `workspace`, when at least as large as the pictures, saves allocating one.
    static func score(reference: LinearRGBImage, distorted: LinearRGBImage, workspace: SSIMULACRA2Workspace? = nil) -> Double? {
        precondition(reference.width == distorted.width && reference.height == distorted.height,
                     "SSIMULACRA2 of pictures of different sizes")
        let count = scaleCount(width: reference.width, height: reference.height)
        guard count > 0 else { return nil }
        let pixels = reference.width * reference.height
        let workspace = workspace.flatMap { $0.capacity >= pixels ? $0 : nil } ?? SSIMULACRA2Workspace(pixels: pixels)
        var norms = [Double](repeating: 0, count: 3 * count * 6)
        var (ref, dist) = (reference, distorted)
        for scale in 0..<count {
            if scale > 0 { ref = ref.halved(); dist = dist.halved() }
            workspace.load(ref, dist)
            for channel in 0..<3 {
                let base = (channel * count + scale) * 6
                let figures = workspace.norms(channel: channel, weights: weights[base..<(base + 6)])
                norms.replaceSubrange(base..<(base + 6), with: figures)
            }
        }
        var total = 0.0
        for (weight, norm) in zip(weights, norms) { total += weight * abs(norm) }
        return transformed(total)
    }

    /// How many scales a picture of this size is measured at.
    static func scaleCount(width: Int, height: Int) -> Int {
        var (w, h, count) = (width, height, 0)
        while count < scales, w >= 8, h >= 8 {
            if count > 0 { (w, h) = ((w + 1) / 2, (h + 1) / 2) }
            count += 1
        }
        return count
    }

    /// The weighted sum of norms mapped to the score: fitted to subjective scores (a cubic),
    /// then 100 - 10 x^0.628, so that 100 means no error.
    private static func transformed(_ sum: Double) -> Double {
        var x = sum * 0.9562382616834844
        x = 2.326765642916932 * x - 0.020884521182843837 * x * x + 6.248496625763138e-05 * x * x * x
        return x > 0 ? 100 - 10 * pow(x, 0.6276336467831387) : 100
    }
}
