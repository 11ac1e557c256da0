"""Quality of a GIF against its source video, for the clipkit benchmark.

What is compared: output frame i of a GIF made at F frames per second stands for the source at time i/F.
The GIF is sampled by its own delays at the middle of each tick, (i + 0.5)/F (so the centisecond rounding
of delays cannot shift a frame onto the wrong tick, and frames merged into one longer frame are counted
for every tick they cover), and compared with the source frame on screen at i/F, scaled to the GIF's
size. Two references are built with ffmpeg from the source:

  up:   fps=F:round=up    the last source frame with pts <= i/F (what is on screen at i/F)
  near: fps=F:round=near  ffmpeg's default, which may pick a frame up to half a tick later

each followed by scale=W:H:flags=lanczos,format=rgb24,format=gray. The GIF's composited frames are
decoded by ffmpeg (one frame per image, timed by the delays parsed here from the file itself) and turned
into grey the same way (format=rgb24,format=gray), so both sides share one RGB-to-luma conversion.
Ticks run over the source duration: ceil(duration * F). If a GIF ends early, its last frame stands
for the remaining ticks (counted in `ticks_past_end`).

SSIM is ffmpeg's (the x264 formulation: 8x8 windows on a 4-pixel grid, integer sums), computed here
with numpy; PSNR is 10*log10(255^2/MSE), "avg" from the mean MSE over all ticks (as ffmpeg's psnr
filter reports it) and "min" the worst tick.

A third mode, `measure_overlap` (the rate-distortion section of the bench), does not sample ticks: each
GIF frame, over its display interval [start, start + delay) (browser delays), is compared with every
source frame whose own display interval [pts, next pts) overlaps it (more than 1 us), scaled to the GIF's
size the same way, and scores the best of them (max SSIM). So a tool that samples another source frame
than ffmpeg's fps filter for a tick is not penalised for that choice, only for how well it renders the
frame it chose. The mean is weighted by each GIF frame's display time (up to the source's end).
"""

import math
import os
import re
import subprocess

import numpy as np

FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin"]


# --- GIF structure ------------------------------------------------------------------------------

def parse_gif(path):
    """Canvas size, each image's stored delay (cs), loop count and the bytes of its colour tables (global and
    local), from the file's blocks (no pixel decoding)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise ValueError(f"{path}: not a GIF")
    w = data[6] | data[7] << 8
    h = data[8] | data[9] << 8
    flags = data[10]
    at = 13
    tables = 0
    if flags & 0x80:
        tables += 3 << ((flags & 7) + 1)
        at += 3 << ((flags & 7) + 1)
    delays, loop, pending = [], None, 0
    n = len(data)
    while at < n:
        b = data[at]
        if b == 0x3B:  # trailer
            break
        if b == 0x21:  # extension
            label = data[at + 1]
            at += 2
            first = True
            while at < n:
                size = data[at]
                if size == 0:
                    at += 1
                    break
                block = data[at + 1:at + 1 + size]
                if label == 0xF9 and first and size >= 4:
                    pending = block[1] | block[2] << 8
                if label == 0xFF and first and block[:11] in (b"NETSCAPE2.0", b"ANIMEXTS1.0"):
                    sub = data[at + 1 + size:at + 1 + size + 1 + data[at + 1 + size]]
                    if len(sub) >= 4 and sub[1] == 1:
                        loop = sub[2] | sub[3] << 8
                first = False
                at += 1 + size
        elif b == 0x2C:  # image
            iflags = data[at + 9]
            at += 10
            if iflags & 0x80:
                tables += 3 << ((iflags & 7) + 1)
                at += 3 << ((iflags & 7) + 1)
            at += 1  # LZW minimum code size
            while at < n:
                size = data[at]
                at += 1 + size
                if size == 0:
                    break
            delays.append(pending)
            pending = 0
        else:
            break  # junk: stop as browsers do
    return {"width": w, "height": h, "delays_cs": delays, "loop": loop, "table_bytes": tables}


def browser_delay(cs):
    """Browsers play a stored delay of 0 or 1 cs as 10 cs."""
    return 10 if cs <= 1 else cs


# --- sources --------------------------------------------------------------------------------------

def probe_duration(src):
    """Source duration in seconds: the video stream's, else the container's."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=duration:format=duration", "-of", "default=nw=1:nk=1", src],
                         capture_output=True, text=True, check=True).stdout.split()
    for v in out:
        try:
            return float(v)
        except ValueError:
            continue
    raise ValueError(f"{src}: no duration")


def reference(src, fps, w, h, cache_dir):
    """Raw grey reference frames (round=up, round=near) at fps and w x h, made once and cached."""
    os.makedirs(cache_dir, exist_ok=True)
    base = os.path.join(cache_dir, f"{os.path.basename(src)}.{fps:g}fps.{w}x{h}")
    up, near = base + ".up.gray", base + ".near.gray"
    stamp = base + ".done"
    src_m = os.path.getmtime(src)
    if not (os.path.exists(stamp) and os.path.getmtime(stamp) >= src_m):
        chain = f"scale={w}:{h}:flags=lanczos,format=rgb24,format=gray"
        graph = (f"[0:v]split[a][b];[a]fps={fps:g}:round=up,{chain}[u];"
                 f"[b]fps={fps:g}:round=near,{chain}[n]")
        subprocess.run(FF + ["-y", "-i", src, "-filter_complex", graph,
                             "-map", "[u]", "-f", "rawvideo", "-pix_fmt", "gray", up + ".part",
                             "-map", "[n]", "-f", "rawvideo", "-pix_fmt", "gray", near + ".part"], check=True)
        os.replace(up + ".part", up)
        os.replace(near + ".part", near)
        open(stamp, "w").close()
    frame = w * h
    return {k: np.memmap(p, dtype=np.uint8, mode="r").reshape(-1, h, w)[: os.path.getsize(p) // frame]
            for k, p in (("up", up), ("near", near))}


# --- metrics --------------------------------------------------------------------------------------

C1 = int(.01 * .01 * 255 * 255 * 64 + .5)
C2 = int(.03 * .03 * 255 * 255 * 64 * 63 + .5)


def ssim(a, b):
    """ffmpeg's SSIM of two grey uint8 frames (x264's: 4x4 block sums, 8x8 windows on a 4-pixel grid)."""
    h, w = a.shape
    bh, bw = h // 4, w // 4
    a = a[:bh * 4, :bw * 4].astype(np.int64).reshape(bh, 4, bw, 4)
    b = b[:bh * 4, :bw * 4].astype(np.int64).reshape(bh, 4, bw, 4)
    sums = [x.sum(axis=(1, 3)) for x in (a, b, a * a + b * b, a * b)]
    s1, s2, ss, s12 = [x[:-1, :-1] + x[1:, :-1] + x[:-1, 1:] + x[1:, 1:] for x in sums]
    var = ss * 64 - s1 * s1 - s2 * s2
    cov = s12 * 64 - s1 * s2
    num = (2 * s1 * s2 + C1).astype(np.float64) * (2 * cov + C2)
    den = (s1 * s1 + s2 * s2 + C1).astype(np.float64) * (var + C2)
    return float((num / den).mean())


def mse(a, b):
    d = a.astype(np.int32) - b
    return float((d * d).mean())


def psnr(m):
    return 99.0 if m == 0 else 10 * math.log10(255 * 255 / m)


# --- decoding -------------------------------------------------------------------------------------

def gif_frames(path, w, h, pix="gray"):
    """The GIF's composited frames as decoded by ffmpeg, one per image (no resampling)."""
    chain = "format=rgb24,format=gray" if pix == "gray" else "format=rgb24"
    size = w * h * (1 if pix == "gray" else 3)
    p = subprocess.Popen(FF + ["-i", path, "-fps_mode", "passthrough", "-vf", chain,
                               "-f", "rawvideo", "-pix_fmt", pix, "-"], stdout=subprocess.PIPE)
    try:
        while True:
            buf = p.stdout.read(size)
            if len(buf) < size:
                break
            yield np.frombuffer(buf, np.uint8).reshape((h, w) if pix == "gray" else (h, w, 3))
    finally:
        p.stdout.close()
        p.wait()


def pillow_check(path, w, h, limit=None):
    """Compares ffmpeg's composited frames with Pillow's: (frames compared, frames differing, max abs diff)."""
    from PIL import Image
    im = Image.open(path)
    compared = differing = worst = 0
    for k, ff in enumerate(gif_frames(path, w, h, "rgb24")):
        if limit is not None and k >= limit:
            break
        try:
            im.seek(k)
        except EOFError:
            differing += 1
            break
        fr = im.convert("RGBA")
        arr = np.asarray(fr)
        opaque = arr[..., 3] == 255
        d = np.abs(arr[..., :3].astype(np.int16) - ff)[opaque]
        m = int(d.max()) if d.size else 0
        compared += 1
        if m:
            differing += 1
            worst = max(worst, m)
    return compared, differing, worst


def measure(gif, src, fps, cache_dir, check_pillow=True):
    """Quality and timing figures of one GIF against its source (see the module doc)."""
    info = parse_gif(gif)
    w, h = info["width"], info["height"]
    delays = [browser_delay(d) for d in info["delays_cs"]]
    starts = np.cumsum([0] + delays[:-1]) if delays else np.array([0])
    gif_cs = int(sum(delays))
    dur = probe_duration(src)
    refs = reference(src, fps, w, h, cache_dir)
    ticks = min(len(refs["up"]), len(refs["near"]), math.ceil(dur * fps - 1e-6))
    res = {"gif_images": len(delays), "ticks": ticks, "canvas": f"{w}x{h}",
           "duration_delta_ms": gif_cs * 10 - round(dur * 1000), "stored_delays_below_2cs":
           sum(1 for d in info["delays_cs"] if d <= 1), "loop": info["loop"]}
    per = {"up": ([], []), "near": ([], [])}
    frames = gif_frames(gif, w, h)
    k, cur, decoded = -1, None, 0
    past_end = 0
    for i in range(ticks):
        t_cs = (i + 0.5) * 100.0 / fps
        if t_cs >= gif_cs:
            past_end += 1
        # advance to the last image whose start is <= t
        while k + 1 < len(delays) and starts[k + 1] <= t_cs:
            nxt = next(frames, None)
            if nxt is None:
                break
            cur, k = nxt, k + 1
            decoded += 1
        for key in ("up", "near"):
            ref = refs[key][i]
            per[key][0].append(ssim(cur, ref))
            per[key][1].append(mse(cur, ref))
    for _ in frames:  # count the rest
        decoded += 1
    res["decoded_frames"] = decoded
    res["ticks_past_end"] = past_end
    for key, (ss, ms) in per.items():
        res[f"ssim_mean_{key}"] = float(np.mean(ss))
        res[f"ssim_min_{key}"] = float(np.min(ss))
        res[f"psnr_avg_{key}"] = psnr(float(np.mean(ms)))
        res[f"psnr_min_{key}"] = psnr(float(np.max(ms)))
    if decoded != len(delays):
        res["warning"] = f"ffmpeg decoded {decoded} frames, the file has {len(delays)} images"
    if check_pillow:
        res["pillow_check"] = pillow_check(gif, w, h)
    return res


# --- best source frame over each GIF frame's display interval --------------------------------------

def source_frames(src, w, h, cache_dir):
    """Every decoded source frame (no fps filter) scaled to w x h and turned grey like the references, and
    its time in seconds from the first frame (showinfo's pts_time in the same ffmpeg run, so the times
    belong to exactly these frames). Made once and cached. Returns (frames memmap, times array, end time):
    the last frame is on screen until the source's duration (or one median frame interval past its time)."""
    os.makedirs(cache_dir, exist_ok=True)
    base = os.path.join(cache_dir, f"{os.path.basename(src)}.all.{w}x{h}")
    raw, times_p, stamp = base + ".gray", base + ".times", base + ".done"
    if not (os.path.exists(stamp) and os.path.getmtime(stamp) >= os.path.getmtime(src)):
        chain = f"scale={w}:{h}:flags=lanczos,format=rgb24,format=gray,showinfo"
        p = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "info", "-y", "-i", src,
                            "-fps_mode", "passthrough", "-vf", chain, "-f", "rawvideo", "-pix_fmt", "gray",
                            raw + ".part"], stderr=subprocess.PIPE, check=True)
        ts = [float(m) for m in re.findall(rb"\[Parsed_showinfo[^\]]*\][^\n]*? pts_time:\s*([-0-9.e+]+)", p.stderr)]
        n = os.path.getsize(raw + ".part") // (w * h)
        if len(ts) != n:
            raise RuntimeError(f"{src}: showinfo gave {len(ts)} times for {n} frames")
        with open(times_p + ".part", "w") as f:
            f.write("\n".join(repr(t) for t in ts))
        os.replace(raw + ".part", raw)
        os.replace(times_p + ".part", times_p)
        open(stamp, "w").close()
    with open(times_p) as f:
        ts = np.array([float(x) for x in f.read().split()])
    frames = np.memmap(raw, dtype=np.uint8, mode="r").reshape(-1, h, w)[: len(ts)]
    ts = ts - ts[0]
    step = float(np.median(np.diff(ts))) if len(ts) > 1 else 0.1
    end = max(probe_duration(src), ts[-1] + step)
    return frames, ts, end


def _block_sums(x):
    """4x4 block sums of x and of x*x, then summed over 2x2 blocks (ffmpeg's 8x8 windows on a 4-pixel grid)."""
    h, w = x.shape
    bh, bw = h // 4, w // 4
    x = x[:bh * 4, :bw * 4].astype(np.int64)
    out = []
    for v in (x, x * x):
        b = v.reshape(bh, 4, bw, 4).sum(axis=(1, 3))
        out.append(b[:-1, :-1] + b[1:, :-1] + b[:-1, 1:] + b[1:, 1:])
    return x, out[0], out[1]


def _ssim_pre(pa, pb):
    """ssim() from the precomputed sums of _block_sums (equal to ssim(a, b))."""
    a, s1, q1 = pa
    b, s2, q2 = pb
    bh, bw = a.shape[0] // 4, a.shape[1] // 4
    p = (a * b).reshape(bh, 4, bw, 4).sum(axis=(1, 3))
    s12 = p[:-1, :-1] + p[1:, :-1] + p[:-1, 1:] + p[1:, 1:]
    var = (q1 + q2) * 64 - s1 * s1 - s2 * s2
    cov = s12 * 64 - s1 * s2
    num = (2 * s1 * s2 + C1).astype(np.float64) * (2 * cov + C2)
    den = (s1 * s1 + s2 * s2 + C1).astype(np.float64) * (var + C2)
    return float((num / den).mean())


def measure_overlap(gif, src, cache_dir):
    """Each GIF frame against the best source frame on screen during its display interval (see the module
    doc). Returns ssim_mean (weighted by display time), ssim_min, the GIF's frame count, and the mean number
    of source frames each GIF frame was compared with."""
    info = parse_gif(gif)
    w, h = info["width"], info["height"]
    delays = [browser_delay(d) / 100.0 for d in info["delays_cs"]]
    frames, ts, end = source_frames(src, w, h, cache_dir)
    n = len(ts)
    t_end = np.append(ts[1:], end)
    cache = {}

    def pre(j):
        if j not in cache:
            cache[j] = _block_sums(np.asarray(frames[j]))
        return cache[j]

    eps = 1e-6
    scores, weights, compared = [], [], 0
    start = 0.0
    for k, g in enumerate(gif_frames(gif, w, h)):
        if k >= len(delays):
            break
        s, e = start, start + delays[k]
        start = e
        j0 = max(0, int(np.searchsorted(ts, s + eps, side="right")) - 1)
        j1 = int(np.searchsorted(ts, e - eps, side="left"))  # frames j0..j1-1 start before e
        js = [j for j in range(j0, j1) if t_end[j] > s + eps] if s < end - eps else []
        if not js:  # past the source's end (or before its first frame): the frame on screen at s
            js = [max(0, min(n - 1, int(np.searchsorted(ts, s, side="right")) - 1))]
        pg = _block_sums(g)
        best = max(_ssim_pre(pg, pre(j)) for j in js)
        compared += len(js)
        for j in [j for j in cache if j < js[0]]:
            del cache[j]
        scores.append(best)
        weights.append(max(0.0, min(e, end) - s) or eps)  # frames past the end weigh (almost) nothing
    if not scores:
        raise ValueError(f"{gif}: no frames decoded")
    return {"ssim_mean": float(np.average(scores, weights=weights)), "ssim_min": float(np.min(scores)),
            "gif_images": len(scores), "images_in_file": len(delays),
            "source_frames_per_image": compared / len(scores)}


if __name__ == "__main__":
    import json
    import sys
    if len(sys.argv) == 4 and sys.argv[1] == "--overlap":
        cache = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cache", "refs")
        print(json.dumps(measure_overlap(sys.argv[2], sys.argv[3], cache), indent=1))
        sys.exit(0)
    if len(sys.argv) < 4:
        sys.exit("usage: quality.py OUT.gif SOURCE FPS [CACHE_DIR] | quality.py --overlap OUT.gif SOURCE")
    cache = sys.argv[4] if len(sys.argv) > 4 else os.path.join(os.path.dirname(__file__), "cache", "refs")
    print(json.dumps(measure(sys.argv[1], sys.argv[2], float(sys.argv[3]), cache), indent=1))
