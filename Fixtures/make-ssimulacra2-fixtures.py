#!/usr/bin/env python3
"""Writes Fixtures/ssimulacra2/: small reference frames, copies of them distorted the ways a GIF
distorts (fewer colours with and without dithering, blur, a colour shift, a stale patch, noise)
and scores.json, the SSIMULACRA2 of each pair by the PyPI `ssimulacra2` package (a NumPy port of
libjxl's tools/ssimulacra2.cc), so the tests check clipkit's own implementation without Python.

Needs ffmpeg, Pillow, NumPy, SciPy and `pip install ssimulacra2` (0.3.0 was used). The package
follows libjxl except in two places that matter for these pictures, so scores.json holds two
figures per pair:
  - "pypi": the package as it is;
  - "libjxl": the package's own functions (colour conversion, downsampling, error maps, weights,
    final mapping) with libjxl's two rules put back: its blur, a recursive approximation of a
    Gaussian (Charalampidis 2016) with zeros outside the picture on all four sides (the package
    uses an exact Gaussian and mirrors the left and right edges), and its number of scales (libjxl
    measures a scale while the scale before it was at least 8 pixels on each side; the package
    stops one scale earlier, which changes which weights apply to pictures under 225 pixels on a
    side). Both matter most at the smallest scales, whose weights are the largest: up to 25 points
    on these pairs. The tests hold clipkit to "libjxl" and report the distance to "pypi".
"""
import io
import json
import os
import subprocess
import sys

import numpy as np
from PIL import Image, ImageFilter
import ssimulacra2.ssimulacra2 as pypi

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "ssimulacra2")
VIDEO = os.path.join(HERE, "video")


def frame(clip, seconds, width, height):
    """One decoded frame of a fixture clip, scaled (bicubic) to width x height."""
    png = subprocess.run(
        ["ffmpeg", "-v", "error", "-ss", str(seconds), "-i", os.path.join(VIDEO, clip), "-frames:v", "1",
         "-vf", f"scale={width}:{height}:flags=bicubic", "-f", "image2pipe", "-vcodec", "png", "-"],
        check=True, capture_output=True).stdout
    return Image.open(io.BytesIO(png)).convert("RGB")


def gradient(width, height):
    x = np.linspace(0, 1, width)[None, :]
    y = np.linspace(0, 1, height)[:, None]
    rgb = np.stack([40 + 200 * x + 0 * y, 30 + 180 * y + 0 * x, 220 - 150 * x * y], axis=2)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))


def radial(width, height):
    yy, xx = np.mgrid[0:height, 0:width]
    r = np.hypot(xx - width * 0.4, yy - height * 0.6) / max(width, height)
    rgb = np.stack([255 * (1 - r), 120 + 100 * np.cos(6 * r), 90 + 160 * r], axis=2)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))


def texture(width, height, seed):
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, size=(height // 4 + 1, width // 4 + 1, 3)).astype(np.uint8)
    return Image.fromarray(small).resize((width, height), Image.BICUBIC)


def quantised(image, colours, dither):
    """Median-cut palette; Pillow dithers only when mapping to a palette it is given."""
    palette = image.quantize(colors=colours, dither=Image.Dither.NONE)
    if not dither:
        return palette.convert("RGB")
    return image.quantize(palette=palette, dither=Image.Dither.FLOYDSTEINBERG).convert("RGB")


def shifted(image, delta):
    return Image.fromarray(np.clip(np.asarray(image).astype(int) + np.array(delta), 0, 255).astype(np.uint8))


def stale(image, older):
    """A third of the picture left as it was in an older frame, as a GIF whose change threshold
    kept stale pixels."""
    out = image.copy()
    w, h = image.size
    box = (w // 3, h // 4, w // 3 + w // 2, h // 4 + h // 2)
    out.paste(older.crop(box), box[:2])
    return out


def noisy(image, sigma, seed):
    rng = np.random.default_rng(seed)
    return Image.fromarray(np.clip(np.asarray(image) + rng.normal(0, sigma, np.asarray(image).shape), 0, 255)
                           .astype(np.uint8))


def recursive_gaussian_coefficients(sigma=1.5):
    """libjxl's CreateRecursiveGaussian (Charalampidis 2016): radius, n2 and d1 of three recursions."""
    radius = round(3.2795 * sigma + 0.2546)
    omega = np.array([1, 3, 5]) * np.pi / (2 * radius)
    p = np.array([1, -1, 1]) / np.tan(0.5 * omega)
    r = np.array([1, -1, 1]) * p * p / np.sin(omega)
    rho = np.exp(-0.5 * sigma * sigma * omega * omega) / radius
    d13, d35, d51 = p[0] * r[1] - r[0] * p[1], p[1] * r[2] - r[1] * p[2], p[2] * r[0] - r[2] * p[0]
    z15, z35 = d35 / d13, d51 / d13
    a = np.array([p, r, [z15, z35, 1.0]])
    beta = np.linalg.solve(a, np.array([1.0, radius * radius - sigma * sigma, z15 * rho[0] + z35 * rho[1] + rho[2]]))
    return radius, -beta * np.cos(omega * (radius + 1)), -2 * np.cos(omega)


def recursive_blur_axis0(image):
    """libjxl's recursive Gaussian along axis 0, zero outside the image (float64 here)."""
    radius, n2, d1 = recursive_gaussian_coefficients()
    size = image.shape[0]
    prev = np.zeros((3,) + image.shape[1:])
    prev2 = np.zeros_like(prev)
    out = np.zeros_like(image)
    for n in range(1 - radius, size):
        left, right = n - radius - 1, n + radius - 1
        total = (image[left] if left >= 0 else 0) + (image[right] if right < size else 0)
        o = n2[:, None, None] * total - d1[:, None, None] * prev - prev2
        prev2, prev = prev, o
        if n >= 0:
            out[n] = o.sum(axis=0)
    return out


def recursive_blur(image):
    """Rows, then columns, as libjxl's FastGaussian."""
    rows = recursive_blur_axis0(image.transpose(1, 0, 2)).transpose(1, 0, 2)
    return recursive_blur_axis0(rows)


def score_libjxl(reference, distorted, blur=recursive_blur):
    """The package's computation with libjxl's blur and scale rule (see the module doc)."""
    lin1 = pypi.srgb_to_linear(np.asarray(reference, dtype=np.float64))
    lin2 = pypi.srgb_to_linear(np.asarray(distorted, dtype=np.float64))
    msssim = pypi.Msssim()
    for scale in range(pypi.kNumScales):
        if lin1.shape[0] < 8 or lin1.shape[1] < 8:
            break
        if scale:
            lin1, lin2 = pypi.downsample(lin1, 2, 2), pypi.downsample(lin2, 2, 2)
        img1 = pypi.make_positive_xyb(pypi.linear_rgb_to_xyb(lin1))
        img2 = pypi.make_positive_xyb(pypi.linear_rgb_to_xyb(lin2))
        s = pypi.MsssimScale()
        mu1, mu2 = blur(img1), blur(img2)
        s.avg_ssim = pypi.ssim_map(mu1, mu2, blur(img1 * img1), blur(img2 * img2), blur(img1 * img2))
        s.avg_edgediff = pypi.edge_diff_map(img1, mu1, img2, mu2)
        msssim.scales.append(s)
    return msssim.score()


def sources():
    """(name, picture, an older picture for the stale patch)."""
    def clip(name, c, t, w, h):
        return name, frame(c, t, w, h), frame(c, max(t - 0.4, 0), w, h)
    yield clip("motion-a", "motion.mp4", 0.5, 96, 64)
    yield clip("motion-b", "motion.mp4", 2.0, 160, 90)
    yield clip("motion-c", "motion.mp4", 1.2, 128, 72)
    yield clip("title", "pick.mp4", 3.0, 128, 72)
    yield clip("testsrc", "pick.mp4", 7.0, 160, 90)
    yield clip("blurred", "pick.mp4", 5.0, 112, 64)
    yield clip("mandelbrot", "pick.mp4", 10.5, 120, 80)
    yield clip("fadein", "pick.mp4", 1.5, 96, 64)
    yield clip("vp9", "vp9.webm", 0.5, 112, 84)
    yield clip("large-testsrc", "pick.mp4", 8.0, 240, 232)
    g = gradient(128, 72)
    yield "gradient", g, g.transpose(Image.FLIP_LEFT_RIGHT)
    r = radial(160, 90)
    yield "radial", r, r.transpose(Image.FLIP_TOP_BOTTOM)
    yield "texture", texture(96, 64, 1), texture(96, 64, 2)
    g = gradient(256, 232)
    yield "large-gradient", g, g.transpose(Image.FLIP_LEFT_RIGHT)


DISTORTIONS = [
    ("q16-dither", lambda im, old, i: quantised(im, 16, True)),
    ("q16", lambda im, old, i: quantised(im, 16, False)),
    ("q64-dither", lambda im, old, i: quantised(im, 64, True)),
    ("q64", lambda im, old, i: quantised(im, 64, False)),
    ("q256-dither", lambda im, old, i: quantised(im, 256, True)),
    ("blur", lambda im, old, i: im.filter(ImageFilter.GaussianBlur(1.2))),
    ("shift", lambda im, old, i: shifted(im, (10, -8, 6))),
    ("stale", lambda im, old, i: stale(im, old)),
    ("noise", lambda im, old, i: noisy(im, 8, i)),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    pairs = []
    for index, (name, picture, older) in enumerate(sources()):
        reference = f"{name}.png"
        picture.save(os.path.join(OUT, reference), optimize=True)
        # Five distortions per source, a different five for neighbours, all nine over the set.
        chosen = [DISTORTIONS[(index * 2 + k) % len(DISTORTIONS)] for k in range(5)]
        if picture.width > 200:  # (noise would make a large PNG)
            chosen = [d for d in DISTORTIONS if d[0] != "noise"]
        if index < 2:
            chosen.append(("same", lambda im, old, i: im.copy()))
        for kind, distort in chosen:
            distorted = f"{name}-{kind}.png"
            image = distort(picture, older, index)
            image.save(os.path.join(OUT, distorted), optimize=True)
            ref_path, dist_path = os.path.join(OUT, reference), os.path.join(OUT, distorted)
            pairs.append({
                "reference": reference, "distorted": distorted, "width": picture.width, "height": picture.height,
                "pypi": round(float(pypi.compute_ssimulacra2(ref_path, dist_path)), 6),
                "libjxl": round(float(score_libjxl(Image.open(ref_path).convert("RGB"),
                                                   Image.open(dist_path).convert("RGB"))), 6),
            })
            print(f"{distorted}: {pairs[-1]['pypi']:.3f} {pairs[-1]['libjxl']:.3f}", file=sys.stderr)
    with open(os.path.join(OUT, "scores.json"), "w") as f:
        json.dump({"generator": f"ssimulacra2 {pypi.__name__} (PyPI 0.3.0)", "pairs": pairs}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
