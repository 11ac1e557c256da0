#!/usr/bin/env python3
"""Bytes against SSIM over clipkit gif's size knobs: where GIFOptions.qualityAnchors (--quality) come from.

Encodes the bench's RD clips (10 fps, 480 px) one at a time over a grid of --colors / --dither /
--threshold / --lossy (and the --quality levels), measures each GIF with quality.measure_overlap (the
bench's RD measure), appends a row per point to a CSV (points already in it are not redone), and
prints each clip's Pareto frontier with the ratio of its bytes to the recipe + gifsicle -O3 --lossy=80
point's (the RD target: at most 0.6x at equal or higher SSIM). Not part of `make bench`: the whole grid
takes about an hour on two cores.

    python3 bench/rd_sweep.py [--grid frontier|lossy|perceptual|quality] [--clips 10,60] [--csv PATH] [--clipkit PATH]
"""

import argparse
import csv
import os
import subprocess
import sys

import quality

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "cache")
REFS = os.path.join(CACHE, "refs")
CLIPS = {"10": os.path.join(CACHE, "src10_720p.mp4"), "60": os.path.join(CACHE, "src60_1080p.mp4")}
FIELDS = ["clip", "tool", "colors", "dither", "threshold", "lossy", "quality", "bytes", "ssim", "ssim_min"]
RECIPE = ("fps=10,scale=480:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];"
          "[b][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle")  # bench.py gif_tools' recipe


def grid(name):
    """(colors, dither, threshold, lossy, quality) points; quality None for explicit settings."""
    if name == "frontier":  # the knobs against each other, then the no-dither colour x threshold grid
        pts = [(c, d, 250, l, None) for d in ("floyd-steinberg", "sierra", "bayer", "none")
               for c in (256, 64) for l in (0, 80, 200)]
        pts += [(c, "none", t, 0, None) for c in (256, 192, 128, 96, 64, 48, 32, 24, 16, 8)
                for t in (250, 500, 750, 1000, 1500, 2000, 3000, 4000)]
        return pts + [(c, d, t, 0, None) for c in (32, 16) for d in ("bayer", "floyd-steinberg") for t in (1000, 2000)]
    if name == "lossy":  # lossy on top of frontier points
        return [(c, "none", t, l, None) for c, t in ((128, 1500), (64, 1500), (32, 2000), (16, 3000), (16, 4000))
                for l in (0, 20, 40, 80)]
    if name == "perceptual":  # the grid behind the SSIMULACRA2 anchors: 256 colours + Floyd-Steinberg + lossy, then fewer colours
        pts = [(256, "floyd-steinberg", t, l, None) for t in (30, 60, 120, 250) for l in (0, 40, 80, 150, 300, 500, 800)]
        return pts + [(c, "floyd-steinberg", t, 800, None) for c in (128, 64, 32) for t in (60, 250, 1000, 2000)]
    return [(None, None, None, None, q) for q in (100, 95, 90, 85, 80, 75, 70, 65, 60, 50, 40, 30, 25, 20, 10, 1)]


def key(r):
    return tuple(str(r.get(k, "")) for k in FIELDS[:7])


def measure(clip, gif, row, out_csv):
    row["bytes"] = os.path.getsize(gif)
    q = quality.measure_overlap(gif, CLIPS[clip], REFS)
    row["ssim"], row["ssim_min"] = round(q["ssim_mean"], 5), round(q["ssim_min"], 5)
    new = not os.path.exists(out_csv)
    with open(out_csv, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow(row)
    os.remove(gif)
    print(f"{clip}: {' '.join(f'{k}={row[k]}' for k in FIELDS[1:])}", flush=True)


def peer(clip, work, out_csv, done):
    row = {"clip": clip, "tool": "recipe+gifsicle -O3", "colors": 256, "dither": "sierra2_4a", "threshold": "",
           "lossy": 80, "quality": ""}
    if key(row) in done:
        return
    recipe, gif = os.path.join(work, f"recipe{clip}.gif"), os.path.join(work, f"peer{clip}.gif")
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", CLIPS[clip],
                    "-vf", RECIPE, recipe], check=True)
    subprocess.run(["gifsicle", "-O3", "--lossy=80", recipe, "-o", gif], check=True)
    os.remove(recipe)
    measure(clip, gif, row, out_csv)


def frontier(rows, clip):
    pts = sorted((r for r in rows if r["clip"] == clip and r["tool"] == "clipkit"), key=lambda r: -float(r["ssim"]))
    out, best = [], float("inf")
    for r in pts:
        if int(r["bytes"]) < best:
            best = int(r["bytes"])
            out.append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", choices=("frontier", "lossy", "perceptual", "quality"), default="frontier")
    ap.add_argument("--clips", default="10,60")
    ap.add_argument("--csv", default=os.path.join(CACHE, "rd-sweep.csv"))
    ap.add_argument("--clipkit", default=os.path.join(HERE, "..", ".build", "release", "clipkit"))
    a = ap.parse_args()
    work = os.path.join(CACHE, "work", "rd-sweep")
    os.makedirs(work, exist_ok=True)
    clips = a.clips.split(",")
    for clip in clips:
        done = {key(r) for r in csv.DictReader(open(a.csv))} if os.path.exists(a.csv) else set()
        peer(clip, work, a.csv, done)
        for colors, dither, threshold, lossy, q in grid(a.grid):
            row = {"clip": clip, "tool": "clipkit", "colors": colors or "", "dither": dither or "",
                   "threshold": threshold or "", "lossy": "" if lossy is None else lossy, "quality": q or ""}
            if key(row) in done:
                continue
            gif = os.path.join(work, f"{clip}.gif")
            cmd = [a.clipkit, "gif", "-q", "--force", CLIPS[clip], "--fps", "10", "--width", "480", "-o", gif]
            cmd += ["--quality", str(q), "--no-measure"] if q else [
                "--colors", str(colors), "--dither", dither, "--threshold", str(threshold), "--lossy", str(lossy)]
            subprocess.run(cmd, check=True)
            measure(clip, gif, row, a.csv)
    rows = list(csv.DictReader(open(a.csv)))
    for clip in clips:
        p = next((r for r in rows if r["clip"] == clip and r["tool"] != "clipkit"), None)
        print(f"\n{clip} s clip frontier" + (f" (peer: {p['bytes']} B at SSIM {p['ssim']})" if p else ""))
        for r in frontier(rows, clip):
            setting = f"--quality {r['quality']}" if r["quality"] else \
                f"--colors {r['colors']} --dither {r['dither']} --threshold {r['threshold']} --lossy {r['lossy']}"
            ratio = f"{int(r['bytes']) / int(p['bytes']):.2f}x" if p else ""
            mark = " (>= peer's SSIM)" if p and float(r["ssim"]) >= float(p["ssim"]) else ""
            print(f"  {int(r['bytes']):>9} B  SSIM {float(r['ssim']):.4f}  {ratio:>6}{mark}  {setting}")


if __name__ == "__main__":
    sys.exit(main())
