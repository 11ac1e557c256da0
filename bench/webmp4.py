"""Animated WebP and MP4 beside clipkit's GIF, for the clipkit benchmark: bytes at equal or higher SSIM.

The three files come from one clip at the GIF's defaults (10 fps, 480 px wide). Each is scored as
bench/quality.py scores a GIF: output tick i (at 10 fps) is the frame on screen at (i + 0.5)/fps, by the
file's own timing (WebP frame durations, MP4 presentation timestamps), compared in grey with the source
frame on screen at i/fps (quality.py's "up" reference, scaled with lanczos to the output's size). The GIF's
figure is quality.measure's `ssim_mean_up`, the README's. Decoding: the GIF by ffmpeg (quality.py), the
WebP by Pillow (libwebp's animation decoder: ffmpeg 5.1 cannot decode animated WebP), the MP4 by ffmpeg;
every frame becomes grey through the same ffmpeg conversion (format=rgb24,format=gray).

Targets: WebP at most 0.35x the GIF's bytes, MP4 at most 0.1x, each at an SSIM no lower than the GIF's.

    run(clipkit, src, fps, width, workdir, cache_dir, extra)  -> rows, once `clipkit gif -o a.gif -o a.webp -o a.mp4`
                                                                 exists: what bench.py calls (extra: its FORCE)
    targets(rows)                                             -> (description, measured, ok) for bench.py's target()
    table(rows)                                               -> a markdown table
    measure_files(src, fps, gif, others, cache_dir)           -> rows for files already written

Standalone:
    python3 bench/webmp4.py --clipkit .build/release/clipkit [--src bench/cache/src10_720p.mp4]
    python3 bench/webmp4.py --files GIF WEBP_OR_MP4... [--src ...]
        e.g. before `clipkit gif` writes WebP/MP4 (bash bench/gen_inputs.sh quick first):
        CLIPKIT_MEASURE=1 swift test --filter AnimationMeasureTests     # /tmp/clipkit-measure/default.{webp,mp4}
        clipkit gif bench/cache/src10_720p.mp4 -o /tmp/clipkit-measure/clipkit.gif
        python3 bench/webmp4.py --files /tmp/clipkit-measure/{clipkit.gif,default.webp,default.mp4}
"""

import json
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality as Q  # noqa: E402

TARGETS = {"webp": 0.35, "mp4": 0.10}


def _gray(rgb_frames, w, h):
    """RGB uint8 frames (h, w, 3) to grey by ffmpeg's rgb24 -> gray conversion (as quality.py's references)."""
    frames = list(rgb_frames)
    if not frames:
        return []
    p = subprocess.run(Q.FF + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-i", "-",
                               "-vf", "format=gray", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                       input=b"".join(np.ascontiguousarray(f).tobytes() for f in frames),
                       capture_output=True, check=True)
    return list(np.frombuffer(p.stdout, np.uint8).reshape(-1, h, w))


def webp_frames(path):
    """(grey frames, start times in s, end in s, size, loop count) of an animated WebP, decoded by Pillow."""
    from PIL import Image
    im = Image.open(path)
    w, h = im.size
    rgb, starts, t = [], [], 0.0
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        rgb.append(np.asarray(im.convert("RGB")))
        starts.append(t)
        t += im.info.get("duration", 0) / 1000.0
    return _gray(rgb, w, h), starts, t, (w, h), im.info.get("loop")


def mp4_frames(path):
    """(grey frames, presentation times in s, end in s, size) of an MP4, decoded by ffmpeg."""
    probe = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=width,height:format=duration:frame=pts_time", "-of", "json", path],
        capture_output=True, text=True, check=True).stdout)
    w, h = probe["streams"][0]["width"], probe["streams"][0]["height"]
    starts = [float(f["pts_time"]) for f in probe["frames"]]
    p = subprocess.run(Q.FF + ["-i", path, "-fps_mode", "passthrough", "-vf", "format=rgb24,format=gray",
                               "-f", "rawvideo", "-pix_fmt", "gray", "-"], capture_output=True, check=True)
    frames = list(np.frombuffer(p.stdout, np.uint8).reshape(-1, h, w))
    if len(frames) != len(starts):
        raise RuntimeError(f"{path}: {len(frames)} frames decoded, {len(starts)} timestamps")
    order = np.argsort(starts, kind="stable")
    return [frames[i] for i in order], [starts[i] for i in order], float(probe["format"]["duration"]), (w, h)


def score(frames, starts, end, src, fps, size, cache_dir):
    """Mean and min SSIM over the source's ticks, each tick scored with the frame on screen at its middle."""
    w, h = size
    refs = Q.reference(src, fps, w, h, cache_dir)["up"]
    ticks = min(len(refs), math.ceil(Q.probe_duration(src) * fps - 1e-6))
    scores, k = [], 0
    for i in range(ticks):
        t = (i + 0.5) / fps
        while k + 1 < len(starts) and starts[k + 1] <= t:
            k += 1
        scores.append(Q.ssim(frames[k], refs[i]))
    return {"ssim": float(np.mean(scores)), "ssim_min": float(np.min(scores)), "frames": len(frames),
            "duration_delta_ms": round((end - Q.probe_duration(src)) * 1000)}


def measure_files(src, fps, gif, others, cache_dir):
    """Rows (name, bytes, ratio to the GIF, ssim, target, pass) for the GIF and each WebP/MP4 in `others`."""
    g = Q.measure(gif, src, fps, cache_dir, check_pillow=False)
    gif_bytes = os.path.getsize(gif)
    rows = [{"name": os.path.basename(gif), "format": "gif", "bytes": gif_bytes, "ratio": 1.0,
             "ssim": g["ssim_mean_up"], "ssim_min": g["ssim_min_up"], "frames": g["gif_images"],
             "duration_delta_ms": g["duration_delta_ms"]}]
    for path in others:
        kind = os.path.splitext(path)[1].lstrip(".").lower()
        if kind == "webp":
            frames, starts, end, size, loop = webp_frames(path)
            row = score(frames, starts, end, src, fps, size, cache_dir)
            row["loop"] = loop
        elif kind == "mp4":
            frames, starts, end, size = mp4_frames(path)
            row = score(frames, starts, end, src, fps, size, cache_dir)
        else:
            raise ValueError(f"{path}: not .webp or .mp4")
        b = os.path.getsize(path)
        row.update({"name": os.path.basename(path), "format": kind, "bytes": b, "ratio": b / gif_bytes,
                    "size": f"{size[0]}x{size[1]}"})
        target = TARGETS[kind]
        row["target"] = f"<= {target}x GIF bytes at SSIM >= GIF's"
        row["pass"] = row["ratio"] <= target and row["ssim"] >= rows[0]["ssim"]
        rows.append(row)
    return rows


def run(clipkit, src, fps, width, workdir, cache_dir, extra=()):
    """clipkit gif writing a GIF, a WebP and an MP4 from one decode, then measure_files. Also times the run."""
    import time
    os.makedirs(workdir, exist_ok=True)
    outs = [os.path.join(workdir, f"clipkit.{ext}") for ext in ("gif", "webp", "mp4")]
    for o in outs:
        if os.path.exists(o):
            os.remove(o)
    cmd = [clipkit, "gif", "-q", *extra, src, "--fps", f"{fps:g}", "--width", str(width)]
    for o in outs:
        cmd += ["-o", o]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True)
    seconds = time.monotonic() - t0
    rows = measure_files(src, fps, outs[0], outs[1:], cache_dir)
    for r in rows:
        r["run_seconds"] = seconds
    return rows


def targets(rows):
    """One (description, measured, ok) per WebP/MP4 row: its bytes against the GIF's, at equal or higher SSIM."""
    gif = rows[0]
    out = []
    for r in rows[1:]:
        desc = (f"gif -o .{r['format']}: at most {TARGETS[r['format']]}x the GIF's bytes at an SSIM no lower "
                f"({r['size']}, 10 s 720p clip)")
        measured = (f"{r['ratio']:.3f}x ({r['bytes']:,} vs {gif['bytes']:,} bytes), SSIM {r['ssim']:.4f} vs "
                    f"{gif['ssim']:.4f}")
        out.append((desc, measured, r["pass"]))
    return out


def table(rows):
    lines = ["| output | bytes | x GIF | SSIM | min SSIM | frames | duration delta | target | |",
             "|---|--:|--:|--:|--:|--:|--:|---|---|"]
    for r in rows:
        ok = "" if "pass" not in r else ("pass" if r["pass"] else "MISS")
        lines.append(f"| {r['name']} | {r['bytes']:,} | {r['ratio']:.3f} | {r['ssim']:.4f} | {r['ssim_min']:.4f} | "
                     f"{r['frames']} | {r['duration_delta_ms']} ms | {r.get('target', '')} | {ok} |")
    return "\n".join(lines)


def markdown(rows):
    """The bench's section: the table and a target line per format."""
    if not rows:
        return ""
    lines = ["", "## WebP and MP4 from the GIF's decode", "",
             "`clipkit gif CLIP --fps 10 --width 480 -o a.gif -o a.webp -o a.mp4` (one decode, default settings: WebP "
             "quality 80, MP4 x264 CRF 23), 10 s 720p clip; SSIM as the GIF's (`up` ticks). One run.", "", table(rows), ""]
    for desc, measured, ok in targets(rows):
        lines.append(f"- Target: {desc}: {measured}: **{'pass' if ok else 'MISS'}**")
    return "\n".join(lines) + "\n"


def main(argv):
    import argparse
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.join(here, "cache", "src10_720p.mp4"))
    ap.add_argument("--fps", type=float, default=10)
    ap.add_argument("--width", type=int, default=480)
    ap.add_argument("--clipkit", help="clipkit binary: runs clipkit gif -o a.gif -o a.webp -o a.mp4")
    ap.add_argument("--files", nargs="+", help="a GIF, then WebP/MP4 files made from the same clip")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    cache = os.path.join(here, "cache", "refs")
    if a.files:
        rows = measure_files(a.src, a.fps, a.files[0], a.files[1:], cache)
    elif a.clipkit:
        rows = run(a.clipkit, a.src, a.fps, a.width, os.path.join(here, "cache", "work", "webmp4"), cache)
    else:
        ap.error("give --clipkit or --files")
    print(json.dumps(rows, indent=1) if a.json else table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
