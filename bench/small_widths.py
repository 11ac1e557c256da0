#!/usr/bin/env python3
"""Small GIFs: bytes, colour-table bytes and SSIMULACRA2 of clipkit's default against the ffmpeg recipe at small widths.

    python3 bench/small_widths.py --clipkit BIN [--clips 720p,natural,screen] [--widths 32,64,160] [-- clipkit options]

For each 3 s cut (bench/rd_clips.py) and width: clipkit's default, clipkit `--palette per-frame`, the ffmpeg
recipe (palettegen/paletteuse, as bench/rd_eval.py makes it) and the recipe + `gifsicle -O3`. Each output is
scored at its own size against the source frames scaled to it with lanczos (bench/rd_eval.py's references
and pairing: every 3rd tick, the better of ffmpeg's round=up and round=near frames), and its colour tables
(global and local) are counted from the file. Stop 39 found with it that at 32-64 px wide most of a
per-frame-palette GIF's bytes are local colour tables (768 B a frame for a picture of a few hundred
bytes): 1.2-2.4 times the recipe's size there. Since then the default (`--palette auto`) shares one
palette on such small pictures, and is smaller than the recipe and scores higher.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402
import rd_clips  # noqa: E402
import rd_eval  # noqa: E402


def score(out, src):
    """SSIMULACRA2 mean of a GIF at its own size (rd_eval's ticks, references and pairing)."""
    frames, durs = rd_eval._decode(out)
    h, w = frames[0].shape[:2]
    ends = np.cumsum(durs)
    up, near = rd_eval._ref_frames(src, w, h, rd_eval.FPS, "up"), rd_eval._ref_frames(src, w, h, rd_eval.FPS, "near")
    n = min(len(up), len(near), int(round(float(ends[-1]) * rd_eval.FPS)))
    ticks = list(range(1 if n > 2 else 0, n, rd_eval.STRIDE))

    def at(i):
        t = (i + 0.5) / rd_eval.FPS
        return frames[min(int(np.searchsorted(ends, t, side="right")), len(frames) - 1)]
    res = list(rd_eval._pool().map(rd_eval._pair_scores, [((np.array(up[i]), np.array(near[i])), at(i)) for i in ticks]))
    return float(np.mean([r[0] for r in res]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clipkit", required=True)
    ap.add_argument("--clips", default="720p,natural,screen")
    ap.add_argument("--widths", default="32,64,160")
    ap.add_argument("opts", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    extra = a.opts[1:] if a.opts[:1] == ["--"] else a.opts
    print(f"{'clip':8s} {'width':>5s}  {'output':27s} {'bytes':>9s} {'tables':>7s} {'SSIMULACRA2':>11s}")
    with tempfile.TemporaryDirectory() as tmp:
        for clip in a.clips.split(","):
            src = rd_clips.make(clip, 3)
            for w in (int(x) for x in a.widths.split(",")):
                outs = {}
                for label, opts in (("clipkit", extra), ("clipkit --palette per-frame", ["--palette", "per-frame", *extra])):
                    out = os.path.join(tmp, f"{clip}-{w}-{len(outs)}.gif")
                    rd_eval.encode(a.clipkit, src, out, opts, width=w)
                    outs[label] = out
                recipe = os.path.join(tmp, f"{clip}-{w}-recipe.gif")
                rd_eval._recipe(src, recipe, width=w)
                outs["recipe"] = recipe
                o3 = os.path.join(tmp, f"{clip}-{w}-recipe-O3.gif")
                rd_eval._gifsicle(recipe, o3)
                outs["recipe + gifsicle -O3"] = o3
                for label, out in outs.items():
                    size = os.path.getsize(out)
                    print(f"{clip:8s} {w:5d}  {label:27s} {size:9d} {100 * quality.parse_gif(out)['table_bytes'] / size:6.1f}% {score(out, src):11.1f}",
                          flush=True)


if __name__ == "__main__":
    main()
