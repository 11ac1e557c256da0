#!/usr/bin/env python3
"""Fast GIF tuning harness (issue 20): clipkit's bytes and SSIMULACRA2 on a short clip set, beside the anchors.

  python3 bench/rd_eval.py --clipkit PATH/TO/clipkit [--clips short|720p,screen,...] [--json] -- <clipkit gif options>

Encodes 3 s cuts of the four bench clips (bench/rd_clips.py: 720p, 1080p, screen, natural; made once in
bench/cache/rd_eval/) with `clipkit gif -q --force CLIP --fps 10 --width 480 -o OUT <options>` and prints per clip:
bytes, encode seconds, SSIMULACRA2 mean and 5th percentile, luma SSIM mean, and the best anchor's SSIMULACRA2
at the same bytes (interpolated linearly in log-bytes on each anchor curve; "-" outside every curve's range),
and the difference. The anchors' curves are made once per clip and cached in bench/cache/rd_eval/anchors-*.json:
  recipe        ffmpeg fps=10,scale=480:-1:flags=lanczos, palettegen=stats_mode=diff,
                paletteuse=dither=sierra2_4a:diff_mode=rectangle (the bench's recipe)
  recipe+O3     + gifsicle -O3, then --lossy=30/80/150          (curve "recipe+gifsicle")
  liq+O3        libimagequant per frame (PyPI imagequant, dithering 1.0, max quality 20/40/60/80/100),
                frames at fps=10 as the recipe, assembled by Pillow (10 cs each), + gifsicle -O3  (curve "liq")
  liq+O3 lossy  the same at quality 40/60/80 + gifsicle -O3 --lossy=80                       (curve "liq+lossy80")

Measurement: output tick i (of ceil(duration * 10)) stands for the source frame on screen at i/10, scaled to
the GIF's size with lanczos, RGB. As in bench/quality.py two references are made, ffmpeg fps=10:round=up (on
screen at i/10) and round=near (ffmpeg's default, which the recipe uses: up to half a tick later); each tick is
scored against the one of the two with the higher luma SSIM (a tool is judged on how it renders the source
frame it chose, not on which of the two it chose). The GIF is sampled by its own delays (browser
rule: 0-1 cs plays as 10 cs) at the middle of the tick, (i + 0.5)/10, composited by Pillow. SSIMULACRA2 is PyPI
`ssimulacra2` on RGB (bench/ssimu2.py); luma SSIM is the x264 formulation of bench/quality.py on BT.601 luma.
Sampling: every 3rd tick from tick 1 (10 of 30 per 3 s clip), the same ticks for every output.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality  # noqa: E402
import rd_clips  # noqa: E402
import ssimu2  # noqa: E402

FPS, WIDTH, STRIDE = 10, 480, 3
ANCHOR_VERSION = 1
FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
LOSSY_RECIPE = (30, 80, 150)
LIQ_Q = (20, 40, 60, 80, 100)
LIQ_LOSSY_Q = (40, 60, 80)


# --- measuring ------------------------------------------------------------------------------------

def _ref_frames(src, w, h, fps=FPS, rnd="up"):
    """Source frames at i/fps (ffmpeg fps round=up or near), scaled to w x h, RGB; cached as .npy."""
    path = os.path.join(rd_clips.CACHE, f"{os.path.basename(src)}.{fps:g}fps.{rnd}.{w}x{h}.rgb.npy")
    if os.path.exists(path):
        return np.load(path, mmap_mode="r")
    raw = subprocess.run(FF + ["-i", src, "-vf", f"fps={fps:g}:round={rnd},scale={w}:{h}:flags=lanczos,format=rgb24",
                               "-f", "rawvideo", "-"], capture_output=True, check=True).stdout
    arr = np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)
    np.save(path + ".part.npy", arr)
    os.replace(path + ".part.npy", path)
    return arr


def _decode(path):
    """Composited RGB frames of a GIF/WebP (Pillow) and their display times in seconds."""
    from PIL import Image, ImageSequence
    with Image.open(path) as im:
        frames, durs = [], []
        for fr in ImageSequence.Iterator(im):
            frames.append(np.asarray(fr.convert("RGB")))
            durs.append(fr.info.get("duration", 100))
    if path.endswith(".gif"):
        durs = [quality.browser_delay(cs) * 10 for cs in quality.parse_gif(path)["delays_cs"]]
    return frames, [d / 1000.0 for d in durs]


def _pair_scores(args):
    """Scores of dist against the better (by luma SSIM) of its candidate references."""
    refs, dist = args
    y = ssimu2.luma(dist)
    ss = [quality.ssim(ssimu2.luma(r), y) for r in refs]
    k = int(np.argmax(ss))
    return ssimu2.score(refs[k], dist), ss[k]


_POOL = None


def _pool():
    global _POOL
    if _POOL is None:
        _POOL = ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
    return _POOL


def measure(out, src, fps=FPS, stride=STRIDE, duration=None):
    """SSIMULACRA2 mean/p5 and luma SSIM mean of out (GIF/WebP/MP4) against src, on every stride-th tick."""
    if out.endswith(".mp4"):
        h_w = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                              "stream=width,height", "-of", "csv=p=0", out], capture_output=True, text=True,
                             check=True).stdout.strip().split(",")
        w, h = int(h_w[0]), int(h_w[1])
        raw = subprocess.run(FF + ["-i", out, "-vf", f"fps={fps:g}:round=up,format=rgb24", "-f", "rawvideo", "-"],
                             capture_output=True, check=True).stdout
        outs = np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)
        ticks_frames = lambda i: outs[min(i, len(outs) - 1)]  # noqa: E731
    else:
        frames, durs = _decode(out)
        h, w = frames[0].shape[:2]
        if w < WIDTH:
            # a GIF made narrower (--max-bytes may shrink the width) is seen at the intended size: scale it up
            # (lanczos) and score it there, not against a reference shrunk to its own size
            from PIL import Image
            w, h = WIDTH, int(round(h * WIDTH / w / 2)) * 2
            frames = [np.asarray(Image.fromarray(f).resize((w, h), Image.LANCZOS)) for f in frames]
        ends = np.cumsum(durs)

        def ticks_frames(i):
            t = (i + 0.5) / fps
            return frames[min(int(np.searchsorted(ends, t, side="right")), len(frames) - 1)]
    up, near = _ref_frames(src, w, h, fps, "up"), _ref_frames(src, w, h, fps, "near")
    refs = up if len(up) <= len(near) else near
    dur = duration if duration is not None else quality.probe_duration(src)
    n = min(int(math.ceil(dur * fps - 1e-6)), len(refs))
    ticks = list(range(1 if n > 2 else 0, n, stride))
    res = list(_pool().map(_pair_scores, [((np.array(up[i]), np.array(near[i])), ticks_frames(i))
                                                for i in ticks]))
    s2 = np.array([r[0] for r in res])
    return {"ssimulacra2": float(s2.mean()), "ssimulacra2_p5": float(np.percentile(s2, 5)),
            "ssim": float(np.mean([r[1] for r in res])), "ticks": len(ticks)}


# --- anchors --------------------------------------------------------------------------------------

def _recipe(src, out, fps=FPS, width=WIDTH):
    vf = (f"fps={fps:g},scale={width}:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];"
          f"[b][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle")
    subprocess.run(FF + ["-i", src, "-vf", vf, out], check=True)


def _liq(src, out, q, fps=FPS, width=WIDTH):
    """libimagequant per frame (dithering 1.0, max quality q), frames timed like the recipe, Pillow-assembled."""
    import imagequant
    from PIL import Image
    probe = subprocess.run(FF + ["-i", src, "-vf", f"fps={fps:g},scale={width}:-1:flags=lanczos,format=rgb24",
                                 "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"], capture_output=True,
                           check=True).stdout
    import io
    w, h = Image.open(io.BytesIO(probe)).size
    raw = subprocess.run(FF + ["-i", src, "-vf", f"fps={fps:g},scale={width}:-1:flags=lanczos,format=rgb24",
                               "-f", "rawvideo", "-"], capture_output=True, check=True).stdout
    arr = np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)
    frames = [imagequant.quantize_pil_image(Image.fromarray(f).convert("RGBA"), dithering_level=1.0,
                                            max_colors=256, min_quality=0, max_quality=q) for f in arr]
    frames[0].save(out, save_all=True, append_images=frames[1:], duration=int(round(1000 / fps)), loop=0,
                   optimize=False, disposal=1)


def _gifsicle(inp, out, lossy=None):
    subprocess.run(["gifsicle", "-O3"] + ([f"--lossy={lossy}"] if lossy else []) + [inp, "-o", out], check=True,
                   stderr=subprocess.DEVNULL)  # (local-colormap warnings on libimagequant frames)


def anchors(clip, src, fps=FPS, width=WIDTH, stride=STRIDE, lossy=LOSSY_RECIPE, liq_q=LIQ_Q, liq_lossy_q=LIQ_LOSSY_Q,
            tag="short"):
    """The anchor points of one clip: {curve: [{label, bytes, ssimulacra2, ...}]}, made once and cached."""
    path = os.path.join(rd_clips.CACHE, f"anchors-{tag}-{clip}-{fps:g}fps-w{width}-s{stride}.v{ANCHOR_VERSION}.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    print(f"bench: measuring anchors for {clip} (once; cached)", file=sys.stderr)
    curves = {"recipe": [], "recipe+gifsicle": [], "liq": [], "liq+lossy80": []}
    with tempfile.TemporaryDirectory(prefix="rdeval") as tmp:
        def point(curve, label, out, **kw):
            m = measure(out, src, fps, stride)
            curves[curve].append(dict(label=label, bytes=os.path.getsize(out), **m, **kw))
        rec = os.path.join(tmp, "recipe.gif")
        _recipe(src, rec, fps, width)
        point("recipe", "recipe", rec)
        for n in (0,) + tuple(lossy):
            o = os.path.join(tmp, f"o3_{n}.gif")
            _gifsicle(rec, o, n)
            point("recipe+gifsicle", f"recipe+O3" + (f" --lossy={n}" if n else ""), o, lossy=n)
        for q in sorted(set(liq_q) | set(liq_lossy_q)):
            raw = os.path.join(tmp, f"liq{q}.gif")
            _liq(src, raw, q, fps, width)
            if q in liq_q:
                o = os.path.join(tmp, f"liq{q}_o3.gif")
                _gifsicle(raw, o)
                point("liq", f"liq q{q}+O3", o, q=q)
            if q in liq_lossy_q:
                o = os.path.join(tmp, f"liq{q}_o3_l80.gif")
                _gifsicle(raw, o, 80)
                point("liq+lossy80", f"liq q{q}+O3 --lossy=80", o, q=q)
    with open(path + ".part", "w") as f:
        json.dump(curves, f, indent=1)
    os.replace(path + ".part", path)
    return curves


def interp_curve(points, nbytes, key="ssimulacra2"):
    """Score of a curve at nbytes, linear in log-bytes between its points sorted by bytes; None outside."""
    pts = sorted((p["bytes"], p[key]) for p in points)
    if len(pts) < 2 or not pts[0][0] <= nbytes <= pts[-1][0]:
        return None
    xs = np.log([p[0] for p in pts])
    return float(np.interp(math.log(nbytes), xs, [p[1] for p in pts]))


def best_anchor(curves, nbytes, key="ssimulacra2"):
    """(score, curve name) of the best anchor curve covering nbytes, or (None, None)."""
    best = (None, None)
    for name, pts in curves.items():
        if len(pts) < 2:
            continue
        s = interp_curve(pts, nbytes, key)
        if s is not None and (best[0] is None or s > best[0]):
            best = (s, name)
    return best


# --- clipkit --------------------------------------------------------------------------------------

def encode(clipkit, src, out, opts, fps=FPS, width=WIDTH):
    cmd = [clipkit, "gif", "-q", "--force", src, "--fps", f"{fps:g}", "--width", str(width), "-o", out, *opts]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError(f"clipkit failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clipkit", required=True, help="clipkit binary to evaluate")
    ap.add_argument("--clips", default="short", help="short (all four) or a comma list of 720p,1080p,screen,natural")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("opts", nargs=argparse.REMAINDER, help="-- then clipkit gif options")
    a = ap.parse_args()
    opts = a.opts[1:] if a.opts[:1] == ["--"] else a.opts
    names = rd_clips.CLIPS if a.clips == "short" else tuple(a.clips.split(","))
    rows = []
    with tempfile.TemporaryDirectory(prefix="rdeval") as tmp:
        for name in names:
            src = rd_clips.make(name, 3)
            curves = anchors(name, src)
            out = os.path.join(tmp, f"{name}.gif")
            secs = encode(os.path.abspath(a.clipkit), src, out, opts)
            m = measure(out, src)
            nbytes = os.path.getsize(out)
            ref, ref_name = best_anchor(curves, nbytes)
            rows.append(dict(clip=name, bytes=nbytes, seconds=round(secs, 2), **m,
                             anchor=ref, anchor_curve=ref_name,
                             delta=None if ref is None else m["ssimulacra2"] - ref))
    if a.json:
        print(json.dumps({"options": opts, "clips": rows}, indent=1))
        return
    print(f"clipkit gif {' '.join(opts) or '(defaults)'}  [3 s cuts, 10 fps, 480 wide, every {STRIDE}rd tick]")
    print(f"{'clip':8} {'bytes':>10} {'secs':>6} {'S2 mean':>8} {'S2 p5':>7} {'SSIM':>6} {'anchor@bytes':>13} {'delta':>7}  curve")
    for r in rows:
        anc = "-" if r["anchor"] is None else f"{r['anchor']:.1f}"
        dl = "-" if r["delta"] is None else f"{r['delta']:+.1f}"
        print(f"{r['clip']:8} {r['bytes']:>10,} {r['seconds']:>6.2f} {r['ssimulacra2']:>8.1f} {r['ssimulacra2_p5']:>7.1f} "
              f"{r['ssim']:>6.3f} {anc:>13} {dl:>7}  {r['anchor_curve'] or ''}")


if __name__ == "__main__":
    main()
