#!/usr/bin/env python3
"""Storyboard benchmark, called from bench/bench.py: scrub-bar sprite sheets of a 10-minute 1080p clip.

clipkit storyboard (a tile every 6 s: 100 tiles of 160x90 on one 10x10 JPEG sheet, plus the WebVTT file and the
manifest), with and without --keyframes, against ffmpeg's recipe for the same sheet
(`-vf fps=1/6,scale=160:-1,tile=10x10`), which decodes every frame. Targets: --keyframes at most 0.2x the recipe's
wall time, without it at most 0.7x, peak RSS under 150 MB.

Run alone (after `make build`): python3 bench/storyboard.py [--runs N]
"""

import os
import subprocess

TASK = "storyboard"
KEYFRAMES_TASK = "storyboard --keyframes"
CLIP = "storyboard600_1080p.mp4"
LABEL = "10 min 1920x1080 30 fps H.264 (keyframes every 4 s), a tile every 6 s"
RECIPE = "ffmpeg fps=1/6,scale=160:-1,tile=10x10"
KEYFRAMES = "clipkit --keyframes"
RSS_LIMIT_MB = 150


def make_clip(cache, ff, log):
    """The 10-minute clip, made once into the cache (a few minutes on 2 cores): testsrc2 at 1080p, x264 veryfast
    CRF 23, a keyframe every 4 s (testsrc2 has no scene cuts, so x264 adds none), B-frames as x264 sets them."""
    path = os.path.join(cache, CLIP)
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return path
    os.makedirs(cache, exist_ok=True)
    tmp = path.replace(".mp4", ".part.mp4")
    log(f"storyboard: making {CLIP} (10 min 1080p; a few minutes)")
    subprocess.run(ff + ["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=600", "-c:v", "libx264", "-preset", "veryfast",
                         "-crf", "23", "-g", "120", "-keyint_min", "60", "-pix_fmt", "yuv420p", "-movflags", "+faststart", tmp],
                   check=True)
    os.replace(tmp, path)
    return path


def tools(Tool, clipkit, force, ff, src):
    """Each writes its sheet(s) into an empty directory."""
    return [
        Tool("clipkit", lambda o: [[clipkit, "storyboard", "-q", *force, src, "--interval", "6", "-o", o]],
             "clipkit.storyboard", True),
        Tool(KEYFRAMES, lambda o: [[clipkit, "storyboard", "-q", *force, src, "--interval", "6", "--keyframes", "-o", o]],
             "clipkit_keyframes.storyboard", True),
        Tool(RECIPE, lambda o: [ff + ["-i", src, "-vf", "fps=1/6,scale=160:-1,tile=10x10", os.path.join(o, "sheet_%d.jpg")]],
             "ffmpeg.storyboard", True),
    ]


def run(run_task, Tool, clipkit, force, ff, cache, runs, log):
    """Runs the three tools `runs` times each (alternating, as bench.py's run_task does). Returns two results for
    bench.py's tables, (task, label, rows, extra) each: clipkit and --keyframes, each beside the recipe."""
    src = make_clip(cache, ff, log)
    log(f"storyboard: {LABEL} ({runs} runs each)")
    rows = run_task(TASK, tools(Tool, clipkit, force, ff, src), runs, log)
    recipe = rows.get(RECIPE, {})
    return [(TASK, LABEL, {"clipkit": rows.get("clipkit", {}), RECIPE: recipe}, {"src": src}),
            (KEYFRAMES_TASK, LABEL, {"clipkit": rows.get(KEYFRAMES, {}), RECIPE: recipe}, {"src": src})]


def targets(results, target, mb):
    """Adds the target rows (bench.py's `target(description, measured, ok)`) for the results `run` returned."""
    found = {t: rows for t, _, rows, _ in results if t in (TASK, KEYFRAMES_TASK)}
    for task, limit in ((KEYFRAMES_TASK, 0.2), (TASK, 0.7)):
        rows = found.get(task, {})
        ck, rp = rows.get("clipkit", {}), rows.get(RECIPE, {})
        what = f"{task} of a 10 min 1080p clip (100 tiles): wall time at most {limit}x ffmpeg's fps=1/6,scale,tile recipe"
        if "wall" in ck and "wall" in rp:
            r = ck["wall"] / rp["wall"]
            target(what, f"{r:.3f}x ({ck['wall']:.2f} s vs {rp['wall']:.2f} s; CPU {ck['cpu']:.2f} s vs {rp['cpu']:.2f} s)",
                   r <= limit)
        elif rows:
            target(what, f"failed: {ck.get('error') or rp.get('error')}", False)
    peaks = [(t, found[t]["clipkit"]["rss_kb"]) for t in (TASK, KEYFRAMES_TASK) if "rss_kb" in found.get(t, {}).get("clipkit", {})]
    if peaks:
        target(f"storyboard 10 min 1080p: peak RSS under {RSS_LIMIT_MB} MB (with and without --keyframes)",
               ", ".join(f"{mb(kb)} MB ({t})" for t, kb in peaks), all(kb < RSS_LIMIT_MB * 1024 for _, kb in peaks))


if __name__ == "__main__":
    import argparse
    import sys

    import bench

    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(bench.WORK, exist_ok=True)
    os.makedirs(bench.KEEP, exist_ok=True)
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    out = run(bench.run_task, bench.Tool, bench.BUILT, ["--force"], bench.FF, bench.CACHE, a.runs, log)
    for task, label, rows, _ in out:
        for name, row in rows.items():
            if "wall" in row:
                print(f"{task} | {name} | {row['wall']:.2f} s wall | {row['cpu']:.2f} s CPU | {bench.mb(row['rss_kb'])} MB | "
                      f"{int(row['bytes'])} bytes")
    targets(out, lambda d, m, ok: print(f"{'pass' if ok else 'MISS'}: {d}: {m}"), bench.mb)
