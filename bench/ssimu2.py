"""SSIMULACRA2 of RGB frames held in memory, for the bench (issue 20).

The scoring is PyPI `ssimulacra2` (a numpy/scipy port of libjxl's tools/ssimulacra2.cc: sRGB -> linear ->
XYB made positive, 6 scales downsampled in linear RGB, Gaussian sigma 1.5, SSIM and the two edge-difference
maps in 1- and 4-norms, the 108 published weights and the final 0.9562 / cubic / power mapping). Its public
function reads image files; `score` here runs the same steps on arrays by calling the package's own helpers
in the same order (no formula is re-implemented here), so a frame needs no PNG round trip.
"""

import subprocess
import sys

import numpy as np


def ensure_package():
    """Installs PyPI `ssimulacra2` when missing (the bench is its only user)."""
    try:
        import ssimulacra2  # noqa: F401
    except ImportError:
        print("bench: installing ssimulacra2", file=sys.stderr)
        for extra in ([], ["--break-system-packages"]):
            if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *extra, "ssimulacra2"]).returncode == 0:
                break
    import ssimulacra2.ssimulacra2 as s
    return s


_S = None


def score(ref, dist):
    """SSIMULACRA2 of dist against ref, both HxWx3 uint8 sRGB arrays of the same size."""
    global _S
    if _S is None:
        _S = ensure_package()
    s = _S
    lin1 = s.srgb_to_linear(ref.astype(np.float64))
    lin2 = s.srgb_to_linear(dist.astype(np.float64))
    img1 = s.make_positive_xyb(s.linear_rgb_to_xyb(lin1))
    img2 = s.make_positive_xyb(s.linear_rgb_to_xyb(lin2))
    ms = s.Msssim()
    for scale in range(s.kNumScales):
        if img1.shape[0] < 8 or img1.shape[1] < 8:
            break
        sigma1_sq = s.blur_image(img1 * img1)
        sigma2_sq = s.blur_image(img2 * img2)
        sigma12 = s.blur_image(img1 * img2)
        mu1 = s.blur_image(img1)
        mu2 = s.blur_image(img2)
        sd = s.MsssimScale()
        sd.avg_ssim = s.ssim_map(mu1, mu2, sigma1_sq, sigma2_sq, sigma12)
        sd.avg_edgediff = s.edge_diff_map(img1, mu1, img2, mu2)
        ms.scales.append(sd)
        if scale < s.kNumScales - 1:
            lin1 = s.downsample(lin1, 2, 2)
            lin2 = s.downsample(lin2, 2, 2)
            img1 = s.make_positive_xyb(s.linear_rgb_to_xyb(lin1))
            img2 = s.make_positive_xyb(s.linear_rgb_to_xyb(lin2))
    return float(ms.score())


def luma(rgb):
    """BT.601 full-range luma of an RGB uint8 frame, rounded to uint8 (what format=gray gives from rgb24)."""
    y = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    return np.clip(np.rint(y), 0, 255).astype(np.uint8)


if __name__ == "__main__":
    # self-check against the package's file-based entry point on two PNGs: python3 bench/ssimu2.py a.png b.png
    from PIL import Image
    mod = ensure_package()
    a = np.asarray(Image.open(sys.argv[1]).convert("RGB"))
    b = np.asarray(Image.open(sys.argv[2]).convert("RGB"))
    print(score(a, b), mod.compute_ssimulacra2(sys.argv[1], sys.argv[2]))
