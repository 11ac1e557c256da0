"""The clips of the SSIMULACRA2 rate-distortion bench (issue 20), made once into bench/cache/rd_eval/.

  720p     ffmpeg's testsrc2 + spiral gradient + grain, 1280x720 30 fps (the graph of gen_inputs.sh's 10 s clip)
  1080p    the same picture at 1920x1080 (the graph of gen_inputs.sh's 60 s clip)
  screen   a synthetic screen recording, 1280x720 30 fps: a dark terminal whose text scrolls 3 px a frame,
           a flat UI sidebar and tab bar, a progress bar that grows, a blinking cursor (Pillow, DejaVu Sans Mono)
  natural  a slow pan and zoom (1.0 -> 1.25) over a sky gradient (deep blue to warm haze) above a ground
           gradient, with scikit-image's bundled photographs astronaut (a face), coffee and chelsea (a cat)
           pasted in; light temporal grain (ffmpeg noise alls=3) and x264 CRF 23, so it carries codec noise

Each is made at a given length: the short set (rd_eval.py) is 3 s of each, the sweep (rd_sweep20.py) uses
10 s for 720p/screen/natural and 60 s for 1080p. All are H.264 yuv420p, x264 veryfast, GOP 60.
"""

import os
import random
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "cache", "rd_eval")
FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-g", "60", "-pix_fmt", "yuv420p"]
CLIPS = ("720p", "1080p", "screen", "natural")
GEN_VERSION = 1


def scene(w, h, r, d, seed, grain=4):
    """gen_inputs.sh's scene(): testsrc2 averaged with a slowly turning spiral gradient, plus grain."""
    return (f"testsrc2=s={w}x{h}:r={r}:d={d}[t];gradients=s={w // 4}x{h // 4}:r={r}:d={d}:c0=0x1e3c72:c1=0xf7b733:"
            f"c2=0xfc4a1a:c3=0x2a9d8f:n=4:speed=0.03:seed={seed}:type=spiral,scale={w}:{h}:flags=bicubic[g];"
            f"[t][g]blend=all_mode=average,noise=alls={grain}:allf=t+u:all_seed={seed}")


def _pipe_encode(out, w, h, frames, extra_vf=None, crf="20"):
    """Encodes an iterator of HxWx3 uint8 frames at 30 fps with x264 into out."""
    x264 = list(X264)
    x264[x264.index("-crf") + 1] = crf
    cmd = FF + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", "30", "-i", "-"]
    if extra_vf:
        cmd += ["-vf", extra_vf]
    p = subprocess.Popen(cmd + x264 + [out], stdin=subprocess.PIPE)
    for f in frames:
        p.stdin.write(np.ascontiguousarray(f, dtype=np.uint8).tobytes())
    p.stdin.close()
    if p.wait() != 0:
        raise RuntimeError(f"ffmpeg failed making {out}")


def _font(size):
    from PIL import ImageFont
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",):
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    return ImageFont.load_default()


def screen_frames(n, w=1280, h=720):
    from PIL import Image, ImageDraw
    rnd = random.Random(20)
    words = ("build", "swift", "clipkit", "gif", "frames", "palette", "ok", "error:", "warning:", "0x7f3a",
             "Compiling", "Linking", "[42/97]", "tests", "passed", "--quality", "encoder", "diff", "main.swift")
    colours = [(204, 204, 204), (118, 200, 120), (230, 200, 90), (230, 110, 100), (110, 170, 240)]
    lines = []
    for i in range(400):
        k = rnd.randint(3, 11)
        text = ("$ " if i % 9 == 0 else "") + " ".join(rnd.choice(words) for _ in range(k))
        lines.append((text, colours[0] if i % 9 == 0 else rnd.choice(colours)))
    font = _font(15)
    small = _font(13)
    lh = 19
    term = (240, 60, 1270, 710)
    for t in range(n):
        im = Image.new("RGB", (w, h), (43, 45, 49))
        d = ImageDraw.Draw(im)
        d.rectangle((0, 0, w, 36), fill=(30, 31, 34))
        for j, name in enumerate(("terminal", "editor", "preview", "settings")):
            x = 240 + j * 150
            d.rectangle((x, 4, x + 140, 36), fill=(55, 57, 63) if j == 0 else (30, 31, 34))
            d.text((x + 12, 12), name, fill=(220, 221, 222), font=small)
        for j in range(9):
            y = 60 + j * 52
            sel = j == (t // 45) % 9
            d.rounded_rectangle((14, y, 224, y + 40), 6, fill=(88, 101, 242) if sel else (54, 57, 63))
            d.text((28, y + 12), f"Channel {j + 1}", fill=(255, 255, 255) if sel else (185, 187, 190), font=small)
        d.rectangle(term, fill=(12, 12, 12))
        scroll = t * 3
        first = scroll // lh
        for k in range(first, first + (term[3] - term[1]) // lh + 2):
            y = term[1] + 6 + k * lh - scroll
            if term[1] <= y <= term[3] - lh:
                text, col = lines[k % len(lines)]
                d.text((term[0] + 10, y), text, fill=col, font=font)
        if (t // 15) % 2 == 0:
            d.rectangle((term[0] + 10, term[3] - 24, term[0] + 19, term[3] - 8), fill=(204, 204, 204))
        d.rectangle((960, 670, 1250, 690), fill=(54, 57, 63))
        d.rectangle((960, 670, 960 + int(290 * (t + 1) / n), 690), fill=(59, 165, 93))
        yield np.asarray(im)


def natural_frames(n, w=1280, h=720):
    from PIL import Image
    import skimage.data as data
    cw, ch = 1920, 1080
    y = np.arange(ch, dtype=np.float64)[:, None]
    horizon = 700
    top, haze = np.array([28, 74, 160.0]), np.array([250, 214, 176.0])
    g0, g1 = np.array([96, 112, 70.0]), np.array([52, 60, 40.0])
    s = np.clip(y / horizon, 0, 1)[..., None]
    sky = top * (1 - s) + haze * s
    gnd = g0 + (g1 - g0) * np.clip((y - horizon) / (ch - horizon), 0, 1)[..., None]
    canvas = np.where((y < horizon)[..., None], sky, gnd)
    canvas = np.broadcast_to(canvas, (ch, cw, 3)).astype(np.uint8)
    base = Image.fromarray(np.ascontiguousarray(canvas))
    for img, size, at in ((data.astronaut(), (620, 620), (180, 400)), (data.coffee(), (540, 360), (900, 640)),
                          (data.chelsea(), (500, 332), (1380, 560))):
        base.paste(Image.fromarray(img).resize(size, Image.LANCZOS), at)
    for t in range(n):
        a = t / max(1, n - 1)
        z = 1.0 + 0.25 * a
        cx, cy = 900 + 160 * a, 600 + 40 * a
        bw, bh = 1600 / z, 900 / z
        box = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
        yield np.asarray(base.resize((w, h), Image.BICUBIC, box=box))


def make(name, seconds):
    """Path of clip `name`, `seconds` long, made when missing (written under a temporary name, then renamed)."""
    os.makedirs(CACHE, exist_ok=True)
    out = os.path.join(CACHE, f"{name}_{seconds:g}s.v{GEN_VERSION}.mp4")
    if os.path.exists(out):
        return out
    tmp = out + ".part.mp4"
    n = int(round(seconds * 30))
    print(f"bench: making {os.path.relpath(out, HERE)}", file=sys.stderr)
    if name == "720p":
        subprocess.run(FF + ["-filter_complex", scene(1280, 720, 30, seconds, 7)] + X264 + [tmp], check=True)
    elif name == "1080p":
        subprocess.run(FF + ["-filter_complex", scene(1920, 1080, 30, seconds, 7)] + X264 + [tmp], check=True)
    elif name == "screen":
        _pipe_encode(tmp, 1280, 720, screen_frames(n))
    elif name == "natural":
        _pipe_encode(tmp, 1280, 720, natural_frames(n), extra_vf="noise=alls=3:allf=t+u:all_seed=5", crf="23")
    else:
        raise ValueError(f"unknown clip {name}")
    os.replace(tmp, out)
    return out
