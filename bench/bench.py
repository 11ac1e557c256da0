#!/usr/bin/env python3
"""clipkit benchmark driver: runs clipkit and its peers side by side and reports medians and ratios.

Called by bench/run.sh (which installs the tools and makes the input clips with bench/gen_inputs.sh).
Each task runs every tool on the same input, alternating them (the order rotates every round), and
reports per tool the median wall time, the peak RSS (GNU time's %M, the largest process in the
tool's process tree), the output bytes and, for GIFs, quality against the source (bench/quality.py).
The start-up rows (clipkit --version, a thumb whose output is up to date) are timed without GNU time,
30 runs each; the batch's incremental second run models CI (fresh clip copies, outputs restored).
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import json
import math
import os
import platform
import re
import resource
import shutil
import struct
import statistics
import subprocess
import sys
import time

import pick as pick_bench
import quality
import measure_check
import rd_plot
import webmp4
import storyboard

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(HERE, "cache")
WORK = os.path.join(CACHE, "work")
KEEP = os.path.join(CACHE, "outputs")
REFS = os.path.join(CACHE, "refs")
BUILT = os.path.join(ROOT, ".build", "release", "clipkit")
# The bench runs a copy of the release binary, so that a rebuild while it runs cannot change what is measured.
CLIPKIT = os.path.join(CACHE, "bin", "clipkit")
START_MS = []  # median wall time of `clipkit --version`, in ms
PICK = []  # bench/pick.py's result: thumb --pick best against a first-frame thumbnail + a keyframe pass
FORCE = []  # ["--force"] when clipkit has it: timed runs do the work, whatever clipkit's incremental state says
GNU_TIME = "/usr/bin/time"
FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
NPROC = os.cpu_count() or 1
BUSY = 0.3  # cores used by other processes above which a row's timings count as disturbed


def imagemagick_convert():
    """ImageMagick's own convert binary (a `convert` earlier on PATH may be a wrapper script)."""
    for p in ("/usr/bin/convert", "/usr/bin/convert-im6.q16"):
        if os.access(p, os.X_OK):
            return p
    return shutil.which("convert") or "convert"


CONVERT = imagemagick_convert()


# --- measuring ------------------------------------------------------------------------------------

def cpu_busy():
    """Busy and total jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle


HZ = os.sysconf("SC_CLK_TCK")


def run_timed(cmd, cwd=None):
    """Runs cmd under GNU time. Returns wall seconds, peak RSS (KB, GNU time's %M), CPU seconds of the
    command (from this process's children's rusage, to the microsecond), and the CPU time the rest of
    the machine used meanwhile (busy time in /proc/stat minus the command's)."""
    stats = os.path.join(WORK, ".time")
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy0 = cpu_busy()
    t0 = time.perf_counter()
    p = subprocess.run([GNU_TIME, "-f", "%M", "-o", stats] + cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    busy = (cpu_busy() - busy0) / HZ
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)[:200]}: {err[-1] if err else ''}")
    with open(stats) as f:
        rss = int(f.read().strip().splitlines()[-1].split()[0])
    return {"wall": wall, "rss_kb": rss, "cpu": cpu, "busy": busy}


def path_bytes(p):
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs)
    return os.path.getsize(p) if os.path.exists(p) else 0


def path_files(p):
    return sum(len(fs) for _, _, fs in os.walk(p)) if os.path.isdir(p) else int(os.path.exists(p))


def png_info(p):
    """'WxH depth-bit kind' of a PNG file, from its header."""
    with open(p, "rb") as f:
        head = f.read(29)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return ""
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    kind = {0: "grey", 2: "RGB", 3: "palette", 4: "grey+alpha", 6: "RGBA"}.get(head[25], "?")
    return f"{w}x{h} {head[24]}-bit {kind}"


def digest(p):
    h = hashlib.sha256()
    paths = [p] if not os.path.isdir(p) else sorted(os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs)
    for q in paths:
        h.update(os.path.relpath(q, p).encode())
        with open(q, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def file_stamps(d):
    """{name: (inode, mtime ns, size)} of the files in directory d but its dot files (clipkit's state): a
    rewritten file (in place or renamed over) gets another stamp."""
    stamps = {}
    for dd, _, fs in os.walk(d):
        for f in fs:
            if not f.startswith("."):
                st = os.stat(os.path.join(dd, f))
                stamps[os.path.relpath(os.path.join(dd, f), d)] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return stamps


def clear(p):
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.exists(p):
        os.remove(p)


def foreign(samples):
    """CPU the rest of the machine used while these samples ran, in cores (over their total time:
    /proc/stat counts in 10 ms ticks, so a single short run says little)."""
    wall = sum(x["wall"] for x in samples)
    return max(0.0, sum(x["busy"] - x["cpu"] for x in samples)) / wall if wall else 0.0


class Tool:
    """One way of doing a task. steps(out) gives the commands; `then` names a derived tool that runs
    more commands on this tool's output, its figures being the sum (time) and max (RSS) of both.
    out None: the tool writes nothing (a decode to ffmpeg's null muxer), it is only timed."""

    def __init__(self, name, steps, out, is_dir=False, then=None):
        self.name, self.steps, self.out, self.is_dir, self.then = name, steps, out, is_dir, then


def run_task(task, tools, runs, log):
    """Runs the tools `runs` times each, alternating them. Returns {tool name: figures}."""
    rows = {}
    for t in tools:
        rows[t.name] = {"samples": [], "digests": set()}
        if t.then:
            rows[t.then[0]] = {"samples": [], "digests": set()}
    for r in range(runs):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        for t in order:
            row = rows[t.name]
            if "error" in row:
                continue
            out = os.path.join(WORK, t.out) if t.out else None
            if out:
                clear(out)
                if t.is_dir:
                    os.makedirs(out)
            try:
                figs = [run_timed(c) for c in t.steps(out)]
            except RuntimeError as e:
                row["error"] = str(e)
                log(f"  {t.name}: FAILED {e}")
                continue
            s = {"wall": sum(f["wall"] for f in figs), "rss_kb": max(f["rss_kb"] for f in figs),
                 "busy": sum(f["busy"] for f in figs), "cpu": sum(f["cpu"] for f in figs),
                 "bytes": path_bytes(out) if out else 0, "files": path_files(out) if out else 0}
            if out and s["bytes"] == 0:
                row["error"] = "exit 0 but no output written"
                log(f"  {t.name}: FAILED {row['error']}")
                continue
            row["samples"].append(s)
            if out:
                row["digests"].add(digest(out))
            if r == 0 and out:
                keep = os.path.join(KEEP, task, t.out)
                clear(keep)
                os.makedirs(os.path.dirname(keep), exist_ok=True)
                shutil.copytree(out, keep) if t.is_dir else shutil.copy(out, keep)
                row["kept"] = keep
                if out.endswith(".png"):
                    row["png"] = png_info(out)
            fl = foreign([s])
            log(f"  {t.name}: {s['wall']:.3f} s ({s['cpu']:.2f} s CPU), {s['rss_kb'] / 1024:.1f} MB, {s['bytes']} bytes"
                + (f"  (other load {fl:.2f} cores)" if fl > 0.25 and s["wall"] > 0.5 else ""))
            if t.then:
                name, steps, out2 = t.then
                row2 = rows[name]
                if "error" in row2:
                    continue
                # out2 a file name: a pipeline step writing out2 from this output, figures added up.
                # out2 callable: a rerun (an incremental second run), figures of its own: out2(out) sets up,
                # untimed, the output directory to rerun into (and the inputs) and returns it; the outputs
                # it holds that the rerun rewrites are counted ("redone").
                rerun = callable(out2)
                if rerun:
                    o2 = out2(out)
                    before = file_stamps(o2)
                else:
                    o2 = os.path.join(WORK, out2)
                    clear(o2)
                try:
                    figs2 = [run_timed(c) for c in steps(out, o2)]
                except RuntimeError as e:
                    row2["error"] = str(e)
                    log(f"  {name}: FAILED {e}")
                    continue
                s2 = {k: sum(f[k] for f in figs2) for k in ("wall", "busy", "cpu")}
                s2["rss_kb"] = max(f["rss_kb"] for f in figs2)
                if not rerun:
                    s2 = {k: s2[k] + s[k] for k in ("wall", "busy", "cpu")} | {"rss_kb": max(s2["rss_kb"], s["rss_kb"])}
                s2.update(bytes=path_bytes(o2), files=path_files(o2))
                if rerun:
                    after = file_stamps(o2)
                    s2["redone"] = sum(1 for k, v in before.items() if after.get(k) != v)
                    s2["outputs"] = len(before)
                row2["samples"].append(s2)
                row2["digests"].add(digest(o2))
                if r == 0 and not rerun:
                    keep2 = os.path.join(KEEP, task, out2)
                    clear(keep2)
                    shutil.copy(o2, keep2)
                    row2["kept"] = keep2
                log(f"  {name}: {s2['wall']:.3f} s, {s2['rss_kb'] / 1024:.1f} MB, {s2['bytes']} bytes"
                    + (f", {s2['redone']} of {s2['outputs']} outputs rewritten" if rerun else ""))
    for row in rows.values():
        sm = row["samples"]
        if sm:
            row["runs"] = len(sm)
            row["wall"] = statistics.median(x["wall"] for x in sm)
            row["wall_min"] = min(x["wall"] for x in sm)
            row["wall_max"] = max(x["wall"] for x in sm)
            row["cpu"] = statistics.median(x["cpu"] for x in sm)
            row["cpu_min"] = min(x["cpu"] for x in sm)
            row["cpu_max"] = max(x["cpu"] for x in sm)
            row["rss_kb"] = statistics.median(x["rss_kb"] for x in sm)
            row["bytes"] = statistics.median(x["bytes"] for x in sm)
            row["files"] = sm[0]["files"]
            row["foreign"] = foreign(sm)
            row["foreign_max"] = max(foreign([x]) for x in sm)
            if "redone" in sm[0]:
                row["redone"] = max(x["redone"] for x in sm)
                row["outputs"] = sm[0]["outputs"]
        row["deterministic"] = len(row.pop("digests")) <= 1
    return rows


def run_startup(cmds, runs, log):
    """Start-up: cmds is [(name, command, output or None)]; each runs once untimed (a warm-up that also
    writes the outputs an up-to-date rerun needs), then `runs` times, alternating as run_task does. Timed
    without GNU time (it adds about 1 ms, much at this scale): time.perf_counter around subprocess.run,
    output to /dev/null. An output that a timed run rewrites (another inode, time or size) counts as
    "redone": for a command meant to skip an up-to-date output that means it did not skip.
    Returns {name: figures} like run_task (no peak RSS or bytes)."""
    rows = {name: {"samples": [], "redone": 0} for name, _, _ in cmds}

    def once(cmd):
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        busy0 = cpu_busy()
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        busy = (cpu_busy() - busy0) / HZ
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)[:200]}")
        return {"wall": wall, "cpu": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime), "busy": busy}

    def stamp(out):
        if not out or not os.path.exists(out):
            return None
        st = os.stat(out)
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    for name, cmd, out in cmds:
        try:
            once(cmd)
            if out and stamp(out) is None:
                raise RuntimeError("exit 0 but no output written")
        except RuntimeError as e:
            rows[name]["error"] = str(e)
            log(f"  {name}: FAILED {e}")
    for r in range(runs):
        order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
        for name, cmd, out in order:
            row = rows[name]
            if "error" in row:
                continue
            before = stamp(out)
            try:
                row["samples"].append(once(cmd))
            except RuntimeError as e:
                row["error"] = str(e)
                log(f"  {name}: FAILED {e}")
                continue
            row["redone"] += int(stamp(out) != before)
    for name, row in rows.items():
        sm = row["samples"]
        if sm:
            row["runs"] = len(sm)
            for k in ("wall", "cpu"):
                row[k] = statistics.median(x[k] for x in sm)
                row[k + "_min"] = min(x[k] for x in sm)
                row[k + "_max"] = max(x[k] for x in sm)
            row["foreign"] = foreign(sm)
            row["foreign_max"] = max(foreign([x]) for x in sm)
            log(f"  {name}: median {row['wall'] * 1000:.1f} ms ({row['wall_min'] * 1000:.1f}-{row['wall_max'] * 1000:.1f}) "
                f"over {len(sm)} runs" + (f", output rewritten in {row['redone']} runs" if row["redone"] else ""))
        row["deterministic"] = True
        del row["samples"]
    return rows


VERSION_ROW = "clipkit --version"
UP_TO_DATE_ROW = "clipkit thumb, output up to date (no --force)"


def startup_cmds(src):
    """clipkit's start-up: --version, and a thumb whose output is up to date (the warm-up run writes it;
    the timed reruns, without --force, must skip it), beside ffmpeg's start-up and a whole ffmpegthumbnailer
    thumbnail for scale."""
    d = os.path.join(WORK, "startup")
    clear(d)
    os.makedirs(d)
    ck_png, ft_png = os.path.join(d, "clipkit.png"), os.path.join(d, "ffmpegthumbnailer.png")
    return [
        (VERSION_ROW, [CLIPKIT, "--version"], None),
        (UP_TO_DATE_ROW, [CLIPKIT, "thumb", src, "-o", ck_png], ck_png),
        ("ffmpeg -version", ["ffmpeg", "-version"], None),
        ("ffmpegthumbnailer -t 0 (makes the thumbnail)",
         ["ffmpegthumbnailer", "-i", src, "-o", ft_png, "-s", "320", "-t", "0"], None),
    ]


# --- tasks ----------------------------------------------------------------------------------------

def gif_tools(src, fps, width):
    f = f"{fps:g}"
    recipe = (f"fps={f},scale={width}:-1:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];"
              f"[b][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle")
    return [
        Tool("clipkit", lambda o: [[CLIPKIT, "gif", "-q", *FORCE, src, "--fps", f, "--width", str(width), "-o", o]],
             "clipkit.gif"),
        Tool("ffmpeg palettegen/paletteuse", lambda o: [FF + ["-i", src, "-vf", recipe, o]], "ffmpeg_recipe.gif",
             then=("ffmpeg recipe + gifsicle -O3", lambda i, o: [["gifsicle", "-O3", i, "-o", o]],
                   "ffmpeg_recipe_O3.gif")),
        Tool("ffmpeg fps,scale", lambda o: [FF + ["-i", src, "-vf", f"fps={f},scale={width}:-1", o]],
             "ffmpeg_plain.gif"),
    ]


def explode_tools(gif):
    return [
        Tool("clipkit", lambda o: [[CLIPKIT, "explode", *FORCE, gif, "-o", o]], "clipkit.frames", True),
        Tool("ImageMagick convert -coalesce",
             lambda o: [[CONVERT, gif, "-coalesce", os.path.join(o, "frame_%04d.png")]], "convert.frames", True),
        Tool("ffmpeg", lambda o: [FF + ["-i", gif, os.path.join(o, "frame_%04d.png")]], "ffmpeg.frames", True),
        Tool("gifsicle --explode (GIFs, speed only)",
             lambda o: [["gifsicle", "--explode", gif, "-o", os.path.join(o, "frame")]], "gifsicle.frames", True),
    ]


FULL_DECODE = "ffmpeg -f null (decodes every frame)"


def decode_limit_tools(src, fps):
    """clipkit gif at its defaults (480 px wide) against a decode of every frame that does nothing else:
    sampling at `fps` should let clipkit leave out the frames no tick shows."""
    f = f"{fps:g}"
    return [
        Tool("clipkit", lambda o: [[CLIPKIT, "gif", "-q", *FORCE, src, "--fps", f, "-o", o]], "clipkit.gif"),
        Tool(FULL_DECODE, lambda o: [FF + ["-i", src, "-f", "null", "-"]], None),
    ]


def big_canvas_gif(path, width=10000, height=10000, image=8):
    """A GIF89a of one `image` x `image` picture in the middle of a width x height canvas: under 100 bytes
    of file that ask a decoder for a 400 MB RGBA canvas. The image data is LZW without compression (a clear
    code before every two literals keeps the codes 3 bits wide)."""
    clear_code, end_code, bits_per_code = 4, 5, 3
    codes = []
    for i in range(image * image):
        if i % 2 == 0:
            codes.append(clear_code)
        codes.append((i % image + i // image) % 4)
    codes.append(end_code)
    acc = nbits = 0
    lzw = bytearray()
    for c in codes:
        acc |= c << nbits
        nbits += bits_per_code
        while nbits >= 8:
            lzw.append(acc & 255)
            acc >>= 8
            nbits -= 8
    if nbits:
        lzw.append(acc & 255)
    data = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, 0x81, 0, 0))  # global table of 4 colours
    data += bytes([0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255])
    data += b"\x21\xf9\x04\x00\x0a\x00\x00\x00"  # graphic control: 10 cs, no transparency
    data += b"\x2c" + struct.pack("<HHHHB", (width - image) // 2, (height - image) // 2, image, image, 0)
    data.append(2)  # LZW minimum code size
    for i in range(0, len(lzw), 255):
        data.append(len(lzw[i:i + 255]))
        data += lzw[i:i + 255]
    data += b"\x00\x3b"
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return len(data)


def big_canvas_tools(gif):
    return [Tool("clipkit", lambda o: [[CLIPKIT, "explode", *FORCE, "--max-pixels", "100000000", gif, "-o", o]],
                 "clipkit.frames", True)]


def thumb_tools(src):
    return [
        Tool("clipkit", lambda o: [[CLIPKIT, "thumb", *FORCE, src, "-o", o]], "clipkit.png"),
        Tool("ffmpegthumbnailer -t 0", lambda o: [["ffmpegthumbnailer", "-i", src, "-o", o, "-s", "320", "-t", "0"]],
             "ffmpegthumbnailer.png"),
        Tool("ffmpeg -frames:v 1", lambda o: [FF + ["-i", src, "-frames:v", "1", "-vf", "scale=320:-1", o]],
             "ffmpeg.png"),
    ]


def seek_tools(src):
    # the seek path: the frame at half the duration
    return [
        Tool("clipkit", lambda o: [[CLIPKIT, "thumb", *FORCE, src, "--at", "50%", "-o", o]], "clipkit.png"),
        Tool("ffmpegthumbnailer -t 50", lambda o: [["ffmpegthumbnailer", "-i", src, "-o", o, "-s", "320", "-t", "50"]],
             "ffmpegthumbnailer.png"),
    ]


LOOP = 'out=$1; shift; for f in "$@"; do b=${f##*/}; '


INCREMENTAL = "clipkit, second run (incremental)"
CI = os.path.join(WORK, "ci")  # the second run's checkout and restored cache


def ci_restore(clips):
    """The set-up of the incremental second run, as on CI: a fresh checkout (the clips copied into a new
    directory, with new modification times, so newer than the outputs) and a cache restore (the first run's
    output directory, its state file included, copied with its files' times kept, as tar keeps them).
    Returns the copied clips and a function that makes the copies and returns the output directory."""
    clip_dir, out_dir = os.path.join(CI, "clips"), os.path.join(CI, "thumbs")
    copies = [os.path.join(clip_dir, os.path.basename(c)) for c in clips]

    def restore(first_out):
        clear(CI)
        os.makedirs(clip_dir)
        for c, dst in zip(clips, copies):
            shutil.copyfile(c, dst)  # contents only: the copy's modification time is now
        shutil.copytree(first_out, out_dir)  # copy2: times kept
        return out_dir

    return copies, restore


def batch_tools(clips):
    copies, restore = ci_restore(clips)
    return [
        Tool("clipkit", lambda o: [[CLIPKIT, "thumb", *FORCE, *clips, "-o", o + "/"]], "clipkit.batch", True,
             then=(INCREMENTAL, lambda i, o: [[CLIPKIT, "thumb", *copies, "-o", o + "/"]], restore)),
        Tool("50 x ffmpegthumbnailer", lambda o: [["bash", "-c", LOOP + 'ffmpegthumbnailer -i "$f" -o "$out/${b%.*}.png" '
                                                   '-s 320 -t 0 || exit 1; done', "_", o, *clips]],
             "ffmpegthumbnailer.batch", True),
        Tool("50 x ffmpeg", lambda o: [["bash", "-c", LOOP + 'ffmpeg -hide_banner -loglevel error -nostdin -y -i "$f" '
                                        '-frames:v 1 -vf scale=320:-1 "$out/${b%.*}.png" || exit 1; done', "_", o, *clips]],
             "ffmpeg.batch", True),
    ]


# --- rate-distortion: bytes vs SSIM for GIF size control -------------------------------------------

LOSSY_LEVELS = (20, 40, 80, 200)
QUALITY_LEVELS = (10, 25, 50, 75, 90)  # --quality: 25 (10 s clip) and 75 (60 s) land just above gifsicle --lossy=80's SSIM
MAX_BYTES_FRACTIONS = (0.25, 0.50, 0.75)
GIFSICLE_LOSSY = (20, 80, 200)
RECIPE, RECIPE_O3 = "ffmpeg palettegen/paletteuse", "ffmpeg recipe + gifsicle -O3"
FAM_LOSSY, FAM_QUALITY, FAM_MAX = "clipkit (default, --lossy N)", "clipkit --quality N", "clipkit --max-bytes N"
FAM_GIFSICLE = "ffmpeg recipe (+ gifsicle -O3 --lossy=N)"


def gif_size_options():
    """Which of clipkit gif's size controls this build has, from `clipkit gif --help`."""
    h = subprocess.run([CLIPKIT, "gif", "--help"], capture_output=True, text=True).stdout
    return {opt: bool(re.search(re.escape(opt) + r"\b", h)) for opt in ("--lossy", "--quality", "--max-bytes")}


def rd_tools(src, fps, width, default_bytes, recipe_gif, opts):
    """The RD points run here: clipkit at its defaults and at each size setting, and gifsicle -O3 --lossy over
    the recipe's GIF (`recipe_gif`, kept from the gif task). Returns (tools, {name: (family, setting, limit)})."""
    f = f"{fps:g}"
    base = [CLIPKIT, "gif", "-q", *FORCE, src, "--fps", f, "--width", str(width)]
    tools, meta = [], {}

    def add(name, family, setting, extra, out, limit=None):
        tools.append(Tool(name, lambda o, extra=extra: [base + extra + ["-o", o]], out))
        meta[name] = (family, setting, limit)

    add("clipkit", FAM_LOSSY, 0, [], "clipkit.gif")
    if opts.get("--lossy"):
        for n in LOSSY_LEVELS:
            add(f"clipkit --lossy {n}", FAM_LOSSY, n, ["--lossy", str(n)], f"clipkit_lossy{n}.gif")
    if opts.get("--quality"):
        for n in QUALITY_LEVELS:
            add(f"clipkit --quality {n}", FAM_QUALITY, n, ["--quality", str(n)], f"clipkit_quality{n}.gif")
    if opts.get("--max-bytes") and default_bytes:
        for frac in MAX_BYTES_FRACTIONS:
            limit = int(default_bytes * frac)
            add(f"clipkit --max-bytes {limit} ({frac:.0%} of default)", FAM_MAX, frac, ["--max-bytes", str(limit)],
                f"clipkit_max{round(frac * 100)}.gif", limit)
    if recipe_gif:
        for n in GIFSICLE_LOSSY:
            name = f"ffmpeg recipe + gifsicle -O3 --lossy={n}"
            tools.append(Tool(name, lambda o, n=n: [["gifsicle", "-O3", f"--lossy={n}", recipe_gif, "-o", o]],
                              f"gifsicle_lossy{n}.gif"))
            meta[name] = (FAM_GIFSICLE, n, None)
    return tools, meta


def run_rd(tag, label, src, gif_rows, runs, opts, log):
    """The RD section for one clip, right after its gif task (whose recipe and recipe + -O3 rows it reuses:
    the same commands; gifsicle --lossy runs on the recipe's GIF, its wall time added to the recipe's and its
    peak RSS the larger). Every point's SSIM is quality.measure_overlap's. Returns the section's figures."""
    rp = gif_rows.get(RECIPE, {})
    recipe_gif = rp.get("kept") if "wall" in rp else None
    default_bytes = gif_rows.get("clipkit", {}).get("bytes")
    if not default_bytes:  # the gif task failed: find the default's size now
        o = os.path.join(WORK, "rd_default.gif")
        subprocess.run([CLIPKIT, "gif", "-q", *FORCE, src, "--fps", "10", "--width", "480", "-o", o], check=False)
        default_bytes = path_bytes(o)
    tools, meta = rd_tools(src, 10, 480, default_bytes, recipe_gif, opts)
    log(f"rate-distortion: {label} ({runs} run{'s' if runs > 1 else ''} each, {len(tools)} points)")
    rows = run_task(f"rd{tag}", tools, runs, log)
    for name, row in rows.items():
        row["family"], row["setting"], row["limit"] = meta[name]
        if meta[name][0] == FAM_GIFSICLE and "wall" in row:
            row["gifsicle_wall"] = row["wall"]
            row["wall"] += rp["wall"]
            row["wall_min"] += rp["wall"]
            row["wall_max"] += rp["wall"]
            row["rss_kb"] = max(row["rss_kb"], rp["rss_kb"])
    for name, fam, setting in ((RECIPE, FAM_GIFSICLE, "recipe"), (RECIPE_O3, FAM_GIFSICLE, "-O3")):
        r = gif_rows.get(name, {})
        if "wall" in r:
            rows[name] = {k: r[k] for k in ("wall", "wall_min", "wall_max", "rss_kb", "bytes", "runs", "kept")} | {
                "family": fam, "setting": setting, "limit": None, "reused": True}
    # SSIM after all timed runs, one process per core (the source's frames are extracted first, once)
    kept = [(name, row["kept"]) for name, row in rows.items() if row.get("kept")]
    if kept:
        t0 = time.time()
        w, h = (lambda i: (i["width"], i["height"]))(quality.parse_gif(kept[0][1]))
        quality.source_frames(src, w, h, REFS)
        with concurrent.futures.ProcessPoolExecutor(max_workers=NPROC) as ex:
            qs = list(ex.map(quality.measure_overlap, [k for _, k in kept], [src] * len(kept), [REFS] * len(kept)))
        for (name, _), q in zip(kept, qs):
            rows[name]["q"] = q
            log(f"  SSIM (best overlapping source frame): {name}: {q['ssim_mean']:.4f}")
        log(f"  SSIM of {len(kept)} GIFs: {time.time() - t0:.1f} s")
    return {"tag": tag, "label": label, "src": src, "runs": runs, "rows": rows, "default_bytes": default_bytes,
            "options": opts}


def rd_equal_ssim(rd, peer):
    """Target (a): clipkit's bytes at SSIM at least the peer point's. The smaller of (1) the smallest bytes of
    any measured clipkit point with SSIM >= the peer's and (2) where adjacent points of clipkit's default/--lossy
    curve (in order of N) straddle the peer's SSIM, the bytes at exactly that SSIM by linear interpolation of bytes
    in SSIM between the two. Returns (bytes or None, how)."""
    rows = rd["rows"]
    target_ssim = rows[peer]["q"]["ssim_mean"]
    best, how = None, None
    for name, row in rows.items():
        if row["family"] != FAM_GIFSICLE and row.get("q") and row["q"]["ssim_mean"] >= target_ssim:
            if best is None or row["bytes"] < best:
                best, how = row["bytes"], f"measured point `{name}` (SSIM {row['q']['ssim_mean']:.4f})"
    curve = sorted(((row["setting"], row["bytes"], row["q"]["ssim_mean"]) for row in rows.values()
                    if row["family"] == FAM_LOSSY and row.get("q")))
    for (n1, b1, s1), (n2, b2, s2) in zip(curve, curve[1:]):
        if s1 >= target_ssim >= s2 and s1 > s2:
            b = b1 + (b2 - b1) * (s1 - target_ssim) / (s1 - s2)
            if best is None or b < best:
                best, how = b, (f"interpolated between --lossy {n1} ({b1} B, SSIM {s1:.4f}) and --lossy {n2} "
                                f"({b2} B, SSIM {s2:.4f}), linear in SSIM")
    return best, how


# --- report ---------------------------------------------------------------------------------------

def fmt_ratio(a, b, digits=2):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.{digits}f}x"


def mb(kb):
    return f"{kb / 1024:.1f}"


def version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        out = (p.stdout + p.stderr).strip().splitlines()
        return out[0].strip() if out else "?"
    except (OSError, subprocess.TimeoutExpired):
        return "not found"


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1048576:.1f} GB"
    return cpu, mem


def git_state():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "Sources", "Package.swift"],
                               capture_output=True, text=True).stdout.strip()
        return head + (" (Sources/ has uncommitted changes)" if dirty else "")
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one clip per task, one run each")
    ap.add_argument("--runs", type=int, help="runs per tool (default 3, QUICK 1)")
    ap.add_argument("--startup-runs", type=int, default=30, help="runs per command of the start-up rows (default 30)")
    ap.add_argument("--out", help="Markdown file to write (default bench/results.md; QUICK: bench/cache/results-quick.md)")
    a = ap.parse_args()
    quick = a.quick
    runs = a.runs or (1 if quick else 3)
    fast_runs = runs if quick else max(runs, 15)  # single thumbnails (~0.1 s): more runs for a steadier median
    startup_runs = a.startup_runs  # start-up (a few ms to 0.1 s a run): many runs, QUICK too
    out_md = a.out or (os.path.join(CACHE, "results-quick.md") if quick else os.path.join(HERE, "results.md"))
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(KEEP, exist_ok=True)
    os.makedirs(os.path.dirname(CLIPKIT), exist_ok=True)
    shutil.copy2(BUILT, CLIPKIT + ".part")
    os.replace(CLIPKIT + ".part", CLIPKIT)
    if "--force" in subprocess.run([CLIPKIT, "gif", "--help"], capture_output=True, text=True).stdout:
        FORCE.append("--force")
    started = time.time()
    load0 = os.getloadavg()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    def c(name):
        return os.path.join(CACHE, name)

    results = []  # (task, input label, rows, extra)

    # gif, each clip followed by the rate-distortion section where it has one (the 60 s clip: one run a point)
    rd = []
    measured = []  # clipkit's own --measure figures against the bench's
    size_opts = gif_size_options()
    rd_clips = {c("src10_720p.mp4"): "10"} | ({} if quick else {c("src60_1080p.mp4"): "60"})
    gif_inputs = [("10 s 1280x720 30 fps H.264", c("src10_720p.mp4"))]
    if not quick:
        gif_inputs += [("60 s 1920x1080 30 fps H.264", c("src60_1080p.mp4")),
                       ("7 s 1280x720 VFR .mkv (30/12/60 fps)", c("vfr.mkv"))]
    for label, src in gif_inputs:
        log(f"gif: {label} ({runs} runs each)")
        rows = run_task("gif", gif_tools(src, 10, 480), runs, log)
        for name, row in rows.items():
            if row.get("kept"):
                log(f"  quality: {name}")
                row["q"] = quality.measure(row["kept"], src, 10, REFS)
        results.append(("gif", label, rows, {"src": src, "seconds": quality.probe_duration(src)}))
        if src in rd_clips:
            rd.append(run_rd(rd_clips[src], label, src, rows, runs if rd_clips[src] == "10" else 1, size_opts, log))
            if "--measure" in subprocess.run([CLIPKIT, "gif", "--help"], capture_output=True, text=True).stdout:
                limit = rows.get("clipkit", {}).get("bytes")
                measured += measure_check.run(CLIPKIT, src, label, WORK, REFS, FORCE, log, limit // 2 if limit else None)

    # WebP and MP4 beside the GIF, from one decode (10 s clip)
    web_rows = []
    try:
        log("webp/mp4: 10 s clip")
        web_rows = webmp4.run(CLIPKIT, c("src10_720p.mp4"), 10, 480, os.path.join(WORK, "webmp4"), REFS, FORCE)
    except Exception as e:  # an older build without WebP/MP4 outputs
        log(f"  webp/mp4: not measured: {e}")

    # decode limit: with --fps 10, clipkit need not decode the 2 frames in 3 that no tick shows (when they are
    # not reference frames), so it should take less time than decoding every frame and nothing else
    dsrc = c("src30_1080p_bf3.mp4")
    dlabel = "30 s 1920x1080 30 fps H.264, 3 B-frames (b-pyramid), gif --fps 10"
    log(f"decode limit: {dlabel} ({runs} runs each)")
    rows = run_task("decode limit", decode_limit_tools(dsrc, 10), runs, log)
    if rows["clipkit"].get("kept"):
        log("  quality: clipkit")
        rows["clipkit"]["q"] = quality.measure(rows["clipkit"]["kept"], dsrc, 10, REFS)
    results.append(("decode limit", dlabel, rows, {"src": dsrc, "seconds": quality.probe_duration(dsrc)}))

    # storyboard: a 10 min 1080p clip to sprite sheets, with and without --keyframes, beside ffmpeg's tile recipe
    results += storyboard.run(run_task, Tool, CLIPKIT, FORCE, FF, CACHE, runs, log)

    # explode: a 100-frame 480x270 GIF written by clipkit gif
    anim = c("anim.gif")
    log("explode: making anim.gif with clipkit gif")
    subprocess.run([CLIPKIT, "gif", "-q", *FORCE, c("src10_720p.mp4"), "--fps", "10", "--width", "480", "-o", anim],
                   check=True)
    info = quality.parse_gif(anim)
    alabel = f"{len(info['delays_cs'])}-frame {info['width']}x{info['height']} GIF from clipkit gif"
    log(f"explode: {alabel} ({runs} runs each)")
    results.append(("explode", alabel, run_task("explode", explode_tools(anim), runs, log), {}))

    # explode: a tiny GIF with a huge canvas (peak memory)
    big = c("canvas10000.gif")
    nbytes = big_canvas_gif(big)
    blabel = f"1 8x8 image on a 10000x10000 canvas ({nbytes}-byte GIF)"
    log(f"explode: {blabel} ({runs} runs)")
    results.append(("explode", blabel, run_task("explode canvas", big_canvas_tools(big), runs, log), {}))

    # thumb
    thumb_inputs = [("1280x720 H.264 .mp4", c("src10_720p.mp4"))]
    if not quick:
        thumb_inputs += [("1920x1080 H.264 .mp4", c("src60_1080p.mp4")),
                         ("1280x720 H.264 .mov, rotated 90", c("rotated90.mov")),
                         ("1280x720 H.264 VFR .mkv", c("vfr.mkv")),
                         ("1280x720 10-bit HEVC .mp4", c("hevc10.mp4")),
                         ("1280x720 VP9 .webm", c("vp9.webm"))]
    for label, src in thumb_inputs:
        log(f"thumb: {label} ({fast_runs} runs each)")
        results.append(("thumb", label, run_task("thumb", thumb_tools(src), fast_runs, log), {}))

    # thumb --at 50%: the seek path
    seek_inputs = [("1280x720 H.264 .mp4, 10 s", c("src10_720p.mp4"))]
    if not quick:
        seek_inputs += [("1920x1080 H.264 .mp4, 60 s", c("src60_1080p.mp4")),
                        ("1920x1080 H.264 3 B-frames .mp4, 30 s", c("src30_1080p_bf3.mp4"))]
    for label, src in seek_inputs:
        log(f"thumb --at 50%: {label} ({fast_runs} runs each)")
        results.append(("thumb --at 50%", label, run_task("thumb seek", seek_tools(src), fast_runs, log), {}))

    # thumb --pick best: what choosing a poster costs (bench/pick.py)
    log("thumb --pick best (bench/pick.py)")
    PICK.append(pick_bench.run(CLIPKIT, c("src10_720p.mp4" if quick else "src60_1080p.mp4"), max(runs, 5), os.path.join(WORK, "pick"), run_timed))

    # batch thumbnails
    bdir = c("batch")
    clips = sorted(os.path.join(bdir, f) for f in os.listdir(bdir) if f.endswith(".mp4") and ".part." not in f)
    log(f"thumb batch: {len(clips)} clips ({runs} runs each)")
    results.append(("thumb batch", f"{len(clips)} clips, 2 s 640x360 H.264", run_task("batch", batch_tools(clips), runs, log), {}))

    # start-up: the floor under any clipkit run, and the cost of a run that finds its output up to date
    ssrc = c("src10_720p.mp4")
    log(f"start-up ({startup_runs} runs each)")
    srows = run_startup(startup_cmds(ssrc), startup_runs, log)
    results.append(("start-up", "process start-up",
                    {"clipkit": srows[VERSION_ROW] | {"cmd": VERSION_ROW}, "ffmpeg -version": srows["ffmpeg -version"]},
                    {}))
    results.append(("start-up", "up-to-date thumb, 1280x720 H.264 .mp4",
                    {"clipkit": srows[UP_TO_DATE_ROW] | {"cmd": UP_TO_DATE_ROW},
                     "ffmpegthumbnailer -t 0 (makes the thumbnail)": srows["ffmpegthumbnailer -t 0 (makes the thumbnail)"]},
                    {}))
    if "wall" in srows[VERSION_ROW]:
        START_MS.append(srows[VERSION_ROW]["wall"] * 1000)

    elapsed = time.time() - started
    load1 = os.getloadavg()
    plot_path = os.path.join(CACHE, "rd-quick.png") if quick else os.path.join(HERE, "rd.png")
    plot_how = None
    if rd:
        try:
            plot_how = rd_plot.plot(rd, plot_path)
            log(f"bench: wrote {os.path.relpath(plot_path, ROOT)} ({plot_how})")
        except Exception as e:  # the tables matter more than the picture
            log(f"bench: no RD plot: {e}")
    md = report(results, quick, runs, fast_runs, startup_runs, elapsed, load0, load1,
                rd, os.path.relpath(plot_path, os.path.dirname(out_md)) if plot_how else None, plot_how)
    md += measure_check.markdown(measured)
    md += webmp4.markdown(web_rows)
    print(md)
    with open(out_md, "w") as f:
        f.write(md)
    with open(os.path.join(CACHE, "results-quick.json" if quick else "results.json"), "w") as f:
        json.dump([{"task": t, "input": l, "rows": r, "extra": e} for t, l, r, e in results]
                  + [{"task": "rate-distortion", "input": x["label"], "rows": x["rows"],
                      "extra": {k: x[k] for k in ("src", "runs", "default_bytes", "options")}} for x in rd],
                  f, indent=1, default=str)
    log(f"bench: wrote {os.path.relpath(out_md, ROOT)} ({elapsed:.0f} s)")
    if any("error" in row for _, _, rows, _ in results for row in rows.values()):
        log("bench: some commands failed (see the table)")


def report(results, quick, runs, fast_runs, startup_runs, elapsed, load0, load1, rd=(), plot_rel=None, plot_how=None):
    cpu, mem = machine()
    L = []
    add = L.append
    add("# clipkit benchmark" + (" (QUICK: one clip per task, one run each)" if quick else ""))
    add("")
    add(f"- Date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
    add(f"- Machine: {cpu}, nproc {NPROC}, {mem} RAM, {platform.system()} {platform.release()}")
    add(f"- Load average at start {load0[0]:.2f} / {load0[1]:.2f} / {load0[2]:.2f}, at end "
        f"{load1[0]:.2f} / {load1[1]:.2f} / {load1[2]:.2f}; bench time {elapsed / 60:.1f} min")
    add(f"- clipkit: {version([CLIPKIT, '--version'])}, commit {git_state()}, release build"
        + (", timed runs with --force (clipkit skips up-to-date outputs otherwise) but for the incremental "
           "and up-to-date rows" if FORCE else ""))
    add(f"- {version(['ffmpeg', '-version'])}")
    add(f"- {version(['gifsicle', '--version'])}")
    add(f"- {version([CONVERT, '-version']).replace('Version: ', '')}")
    add(f"- {version(['ffmpegthumbnailer', '-v'])}")
    import numpy
    import PIL
    add(f"- Python {platform.python_version()}, numpy {numpy.__version__}, Pillow {PIL.__version__} (measuring only)")
    fl = [row["foreign"] for _, _, rows, _ in results for row in rows.values() if "foreign" in row]
    busy = sorted({f"{t} {l}" for t, l, rows, _ in results for row in rows.values() if row.get("foreign", 0) > BUSY})
    if fl:
        add(f"- Other processes' CPU use while tools ran: median {statistics.median(fl):.2f} cores over the rows, "
            f"max {max(fl):.2f}" + (f"; **the machine was busy during: {', '.join(busy)}: those timings are "
                                     f"disturbed, rerun when it is quiet**" if busy else " (a quiet machine)"))
    add(f"- Runs per tool: {runs} ({fast_runs} for single thumbnails, {startup_runs} for start-up), alternating tools; "
        f"figures are medians")
    add("")
    add("Reproduce: `make bench` (full) or `make bench QUICK=1`. Ratios are clipkit's figure divided by the peer's: "
        "below 1x means clipkit is faster / smaller / uses less memory; for SSIM and PSNR above 1x means clipkit is better.")
    add("")

    # ratio table
    add("## clipkit as a ratio to each peer")
    add("")
    add("| task | input | peer | wall time | peak RSS | output bytes | SSIM mean | SSIM min | PSNR avg | PSNR min "
        "| SSIM mean vs round=near ref | duration Δ ms (clipkit / peer) |")
    add("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for task, label, rows, _ in results:
        ck = rows.get("clipkit", {})
        for name, row in rows.items():
            if name == "clipkit":
                continue
            if "wall" not in row or "wall" not in ck:
                add(f"| {task} | {label} | {name} | failed: {row.get('error') or ck.get('error')} |" + " |" * 8)
                continue
            if name.startswith("clipkit,"):
                add(f"| {task} | {label} | {name} | first run takes {ck['wall'] / row['wall']:.1f}x as long "
                    f"| {fmt_ratio(ck['rss_kb'], row['rss_kb'])} | | | | | | | |")
                continue
            q, cq = row.get("q"), ck.get("q")
            # (start-up rows have no peak RSS or bytes)
            cells = [fmt_ratio(ck["wall"], row["wall"]), fmt_ratio(ck.get("rss_kb"), row.get("rss_kb")),
                     fmt_ratio(ck.get("bytes"), row.get("bytes"))]
            if q and cq:
                cells += [fmt_ratio(cq["ssim_mean_up"], q["ssim_mean_up"], 3), fmt_ratio(cq["ssim_min_up"], q["ssim_min_up"], 3),
                          f"{fmt_ratio(cq['psnr_avg_up'], q['psnr_avg_up'], 3)} ({cq['psnr_avg_up'] - q['psnr_avg_up']:+.1f} dB)",
                          f"{fmt_ratio(cq['psnr_min_up'], q['psnr_min_up'], 3)} ({cq['psnr_min_up'] - q['psnr_min_up']:+.1f} dB)",
                          fmt_ratio(cq["ssim_mean_near"], q["ssim_mean_near"], 3),
                          f"{cq['duration_delta_ms']:+d} / {q['duration_delta_ms']:+d}"]
            else:
                cells += [""] * 6
            add(f"| {task} | {label} | {name} | " + " | ".join(cells) + " |")
    add("")

    # absolute figures
    add("## Figures (medians)")
    add("")
    add("| task | input | tool | wall s (min-max) | peak RSS MB | output bytes | files | SSIM mean / min | PSNR avg / min dB "
        "| SSIM mean / min vs round=near | PSNR avg vs round=near | GIF frames / ticks | duration Δ ms | other load (cores) |")
    add("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for task, label, rows, _ in results:
        for name, row in rows.items():
            if "wall" not in row:
                add(f"| {task} | {label} | {name} | failed: {row.get('error', '?')} |" + " |" * 10)
                continue
            q = row.get("q")
            qc = ["", "", "", "", "", ""]
            if q:
                qc = [f"{q['ssim_mean_up']:.4f} / {q['ssim_min_up']:.4f}", f"{q['psnr_avg_up']:.2f} / {q['psnr_min_up']:.2f}",
                      f"{q['ssim_mean_near']:.4f} / {q['ssim_min_near']:.4f}", f"{q['psnr_avg_near']:.2f}",
                      f"{q['gif_images']} / {q['ticks']}", f"{q['duration_delta_ms']:+d}"]
            det = "" if row["deterministic"] or name != "clipkit" else " (outputs differ between runs)"
            if "redone" in row and "outputs" in row:
                det += f" ({row['redone']} of {row['outputs']} outputs rewritten)" if row["redone"] else " (all skipped)"
            elif row.get("redone"):
                det += f" (output rewritten in {row['redone']} of {row['runs']} runs: not skipped)"
            det += " (machine busy)" if row["foreign"] > BUSY else ""
            d = 4 if task == "start-up" else 3
            if "rss_kb" in row:
                sizes = (f"{mb(row['rss_kb'])} | {int(row['bytes'])} | {row['files']}"
                         f"{' (' + row['png'] + ')' if row.get('png') else ''}")
            else:
                sizes = " | | "
            add(f"| {task} | {label} | {row.get('cmd', name)}{det} | {row['wall']:.{d}f} ({row['wall_min']:.{d}f}-"
                f"{row['wall_max']:.{d}f}) | {sizes} | " + " | ".join(qc) + f" | {row['foreign']:.2f} |")
    add("")

    # rate-distortion
    if rd:
        opts = rd[0]["options"]
        absent = [o for o in ("--quality", "--max-bytes") if not opts.get(o)]
        add("## Rate-distortion: GIF size control")
        add("")
        add("Bytes against SSIM at 10 fps, 480 px wide, for clipkit at its defaults and at each size setting, and for "
            "ffmpeg's palettegen/paletteuse recipe, alone and followed by `gifsicle -O3` (lossless) and "
            "`gifsicle -O3 --lossy=N`. SSIM here: each GIF frame against the *best* source frame on screen during its "
            "display interval (max SSIM over the source frames whose interval overlaps the GIF frame's; "
            "`quality.measure_overlap`), mean weighted by display time, so a tool is not penalised for sampling "
            "another source frame than ffmpeg's fps filter. The recipe and recipe + -O3 points are the gif task's runs; "
            "a gifsicle --lossy point's wall time is the recipe's plus gifsicle's, its peak RSS the larger. "
            + (f"This clipkit has no {' or '.join('`' + o + '`' for o in absent)} (`clipkit gif --help`): those points are "
               "left out. " if absent else "")
            + "Runs per point: " + ", ".join(f"{x['runs']} ({x['label'].split(' 30 fps')[0]})" for x in rd) + ".")
        add("")
        if plot_rel:
            add(f"![bytes vs SSIM]({plot_rel}) ([plot]({plot_rel}); {plot_how})")
            add("")
        add("| input | family | point | bytes | vs default | SSIM mean (best overlap) | SSIM min | wall s (min-max) "
            "| peak RSS MB |")
        add("|---|---|---|---|---|---|---|---|---|")
        for x in rd:
            order = {FAM_LOSSY: 0, FAM_QUALITY: 1, FAM_MAX: 2, FAM_GIFSICLE: 3}
            for name, row in sorted(x["rows"].items(), key=lambda kv: (order[kv[1]["family"]], -kv[1]["bytes"]
                                                                       if "bytes" in kv[1] else 0)):
                lab = x["label"].split(" 30 fps")[0]
                if "wall" not in row:
                    add(f"| {lab} | {row['family']} | {name} | failed: {row.get('error', '?')} | | | | | |")
                    continue
                q = row.get("q") or {}
                lim = f" ({row['bytes'] / row['limit']:.1%} of the limit)" if row.get("limit") else ""
                add(f"| {lab} | {row['family']} | {name} | {int(row['bytes'])}{lim} | {row['bytes'] / x['default_bytes']:.2f}x "
                    f"| {q.get('ssim_mean', float('nan')):.4f} | {q.get('ssim_min', float('nan')):.4f} "
                    f"| {row['wall']:.2f} ({row['wall_min']:.2f}-{row['wall_max']:.2f}) | {mb(row['rss_kb'])} |")
        add("")

    # targets
    add("## Targets from the issues")
    add("")
    add("| target | measured | result |")
    add("|---|---|---|")
    T = []

    def target(desc, measured, ok):
        T.append(ok)
        add(f"| {desc} | {measured} | {'pass' if ok else '**MISS**' if ok is not None else 'n/a'} |")

    def find(task, label_start=None):
        for t, l, r, e in results:
            if t == task and (label_start is None or l.startswith(label_start)):
                return r, e
        return None, None

    def get(rows, name, key):
        return rows.get(name, {}).get(key) if rows else None

    thumbs, _ = find("thumb", "1280x720 H.264 .mp4")
    if thumbs and "wall" in thumbs.get("clipkit", {}):
        ck = thumbs["clipkit"]
        for peer in ("ffmpegthumbnailer -t 0", "ffmpeg -frames:v 1"):
            if "wall" in thumbs.get(peer, {}):
                r = ck["wall"] / thumbs[peer]["wall"]
                target(f"thumb 720p: wall time at most 0.5x {peer}", f"{r:.3f}x", r <= 0.5)
        target("thumb 720p: peak RSS under 60 MB", f"{mb(ck['rss_kb'])} MB", ck["rss_kb"] < 60 * 1024)
    for task, label, rows, _ in results:
        if task == "thumb --at 50%" and "wall" in rows.get("clipkit", {}) and "wall" in rows.get("ffmpegthumbnailer -t 50", {}):
            r = rows["clipkit"]["wall"] / rows["ffmpegthumbnailer -t 50"]["wall"]
            # information (issue 12): the cost of the exact, verified seek path; no target was set
            target(f"thumb --at 50% ({label}): wall time vs ffmpegthumbnailer -t 50 (information)", f"{r:.3f}x", True)
    for result in PICK:
        target(*pick_bench.target(result))
    batch, _ = find("thumb batch")
    if batch and "wall" in batch.get("clipkit", {}) and "wall" in batch.get("50 x ffmpegthumbnailer", {}):
        r = batch["clipkit"]["wall"] / batch["50 x ffmpegthumbnailer"]["wall"]
        target("thumb batch of 50: faster than 50 ffmpegthumbnailer calls (issue 2)", f"{r:.3f}x", r < 1)
        target("thumb batch of 50: at least 3x faster than 50 ffmpegthumbnailer calls (issue 5)",
               f"{1 / r:.1f}x faster", r <= 1 / 3)
        inc = batch.get(INCREMENTAL, {})
        if "wall" in inc:
            f = batch["clipkit"]["wall"] / inc["wall"]
            target("thumb batch of 50: second, incremental run at least 20x faster than the first (issue 5; the "
                   "second run as on CI: clips copied with new modification times, outputs restored from cache)",
                   f"{f:.1f}x faster ({batch['clipkit']['wall']:.3f} s -> {inc['wall']:.3f} s, "
                   f"{inc['redone']} of {inc['outputs']} outputs rewritten"
                   + (f"; `clipkit --version` alone takes {START_MS[0] / 1000:.3f} s)" if START_MS else ")"), f >= 20)
    for label_start, desc in (("process", "start-up: clipkit --version at most 15 ms"),
                              ("up-to-date", "start-up: up-to-date thumb at most 15 ms")):
        su, _ = find("start-up", label_start)
        ck = su.get("clipkit", {}) if su else {}
        if "wall" in ck:
            ms = ck["wall"] * 1000
            skipped = not ck.get("redone")
            target(desc, f"{ms:.1f} ms (median of {ck['runs']}, {ck['wall_min'] * 1000:.1f}-{ck['wall_max'] * 1000:.1f})"
                   + ("" if skipped else f"; **not skipped: the output was rewritten in {ck['redone']} runs**"),
                   ms <= 15 and skipped)
    g10, _ = find("gif", "10 s")
    g60, e60 = find("gif", "60 s")
    if g10 and "wall" in g10.get("clipkit", {}):
        ck = g10["clipkit"]
        rp = g10.get("ffmpeg palettegen/paletteuse", {})
        if "wall" in rp:
            target("gif 10 s 720p: wall time at most 0.5x ffmpeg's recipe", f"{ck['wall'] / rp['wall']:.3f}x",
                   ck["wall"] / rp["wall"] <= 0.5)
            if ck.get("q") and rp.get("q"):
                a, b = ck["q"]["ssim_mean_up"], rp["q"]["ssim_mean_up"]
                target("gif 10 s 720p: mean SSIM at least ffmpeg recipe's (reference at each GIF's display times, round=up)",
                       f"{a:.4f} vs {b:.4f}", a >= b)
                a, b = ck["q"]["ssim_mean_near"], rp["q"]["ssim_mean_near"]
                target("(same, against the round=near reference ffmpeg's own timing uses)", f"{a:.4f} vs {b:.4f}", a >= b)
            target("gif 10 s 720p: file size at most 0.7x ffmpeg recipe's", f"{ck['bytes'] / rp['bytes']:.2f}x "
                   f"({ck['bytes'] / 1e6:.2f} MB vs {rp['bytes'] / 1e6:.2f} MB)", ck["bytes"] / rp["bytes"] <= 0.7)
        target("gif 10 s 720p: peak RSS under 100 MB", f"{mb(ck['rss_kb'])} MB", ck["rss_kb"] < 100 * 1024)
        if g60 and "wall" in g60.get("clipkit", {}):
            c60 = g60["clipkit"]
            target("gif 60 s 1080p: peak RSS under 150 MB", f"{mb(c60['rss_kb'])} MB", c60["rss_kb"] < 150 * 1024)
            target("gif 60 s 1080p: peak RSS within 1.3x of the 10 s figure", f"{c60['rss_kb'] / ck['rss_kb']:.2f}x ({mb(c60['rss_kb'])} MB vs {mb(ck['rss_kb'])} MB)",
                   c60["rss_kb"] / ck["rss_kb"] <= 1.3)
            per10, per60 = ck["wall"] / 10, c60["wall"] / 60
            target("gif scaling (information): wall time per source second, 60 s 1080p vs 10 s 720p "
                   "(1080p has 2.25x the pixels to decode)", f"{per60:.3f} s vs {per10:.3f} s ({per60 / per10:.2f}x)", None)
            rp60 = g60.get("ffmpeg palettegen/paletteuse", {})
            if "rss_kb" in rp60 and "rss_kb" in rp:
                target("gif scaling (information): ffmpeg recipe's peak RSS 10 s -> 60 s",
                       f"{mb(rp['rss_kb'])} MB -> {mb(rp60['rss_kb'])} MB", None)
    rdd = {x["tag"]: x for x in rd}
    peer = f"ffmpeg recipe + gifsicle -O3 --lossy=80"
    for x in rd:
        rows = x["rows"]
        lab = x["label"].split(" 30 fps")[0]
        if rows.get(peer, {}).get("q"):
            pb, ps = rows[peer]["bytes"], rows[peer]["q"]["ssim_mean"]
            b, how = rd_equal_ssim(x, peer)
            if b is None:
                target(f"RD {lab}: at equal or higher SSIM, clipkit's bytes at most 0.6x those of recipe + gifsicle -O3 "
                       f"--lossy=80", f"no clipkit point reaches its SSIM {ps:.4f}", False)
            else:
                target(f"RD {lab}: at equal or higher SSIM, clipkit's bytes at most 0.6x those of recipe + gifsicle -O3 "
                       f"--lossy=80 (best-overlap SSIM)", f"{b / pb:.2f}x ({b / 1e6:.3f} MB vs {pb / 1e6:.3f} MB at SSIM "
                       f"{ps:.4f}; clipkit's bytes: {how})", b / pb <= 0.6)
        ck = rows.get("clipkit", {})
        lims = [(n, r) for n, r in rows.items() if r["family"] == FAM_MAX]
        if lims and "wall" in ck:
            cells, ok = [], True
            for n, r in sorted(lims, key=lambda kv: kv[1]["setting"]):
                if "wall" not in r:
                    cells.append(f"{r['setting']:.0%}: failed")
                    ok = False
                    continue
                f, w = r["bytes"] / r["limit"], r["wall"] / ck["wall"]
                ok = ok and 0.9 <= f <= 1.0 and w <= 2.2
                cells.append(f"{r['setting']:.0%}: {f:.1%} of the limit, {w:.2f}x the time")
            target(f"RD {lab}: --max-bytes at 25/50/75% of the default's size: output within 90-100% of the limit "
                   f"and wall time at most 2.2x a default encode ({ck['wall']:.2f} s)", "; ".join(cells), ok)
    if rd and not rd[0]["options"].get("--max-bytes"):
        target("RD: --max-bytes at 25/50/75% of the default's size within 90-100% of the limit, wall time at most "
               "2.2x a default encode", "n/a: `clipkit gif --help` lists no --max-bytes", None)
    if "10" in rdd and "60" not in rdd:
        target("RD: peak RSS of clipkit gif --lossy 80, 60 s 1080p within 1.3x of the 10 s 720p figure",
               "n/a: no 60 s clip in QUICK mode", None)
    if "10" in rdd and "60" in rdd:
        pairs = []
        for n in LOSSY_LEVELS:
            a, b = rdd["10"]["rows"].get(f"clipkit --lossy {n}", {}), rdd["60"]["rows"].get(f"clipkit --lossy {n}", {})
            if "rss_kb" in a and "rss_kb" in b:
                pairs.append((n, b["rss_kb"] / a["rss_kb"], a["rss_kb"], b["rss_kb"]))
        main = [p for p in pairs if p[0] == 80] or pairs[:1]
        if main:
            n, r, a, b = main[0]
            target(f"RD: peak RSS of clipkit gif --lossy {n}, 60 s 1080p within 1.3x of the 10 s 720p figure",
                   f"{r:.2f}x ({mb(b)} MB vs {mb(a)} MB; every level: "
                   + ", ".join(f"--lossy {m} {q:.2f}x" for m, q, _, _ in pairs) + ")", r <= 1.3)
    dl, _ = find("decode limit")
    if dl and "wall" in dl.get("clipkit", {}) and "wall" in dl.get(FULL_DECODE, {}):
        ck, fd = dl["clipkit"], dl[FULL_DECODE]
        r = ck["wall"] / fd["wall"]
        target("decode limit: gif --fps 10 of a 30 s 1080p clip with B-frames, wall time at most 0.8x a full decode "
               "(`ffmpeg -i CLIP -f null -`)",
               f"{r:.3f}x ({ck['wall']:.2f} s vs {fd['wall']:.2f} s; CPU time {ck['cpu']:.2f} s vs {fd['cpu']:.2f} s, "
               f"{ck['cpu'] / fd['cpu']:.2f}x)", r <= 0.8)
    ex, _ = find("explode", "1 8x8 image")
    if ex and "rss_kb" in ex.get("clipkit", {}):
        target("explode 10000x10000 canvas (one 8x8 image): peak RSS under 600 MB", f"{mb(ex['clipkit']['rss_kb'])} MB",
               ex["clipkit"]["rss_kb"] < 600 * 1024)
    ex, _ = find("explode")
    if ex and "wall" in ex.get("clipkit", {}):
        ck = ex["clipkit"]
        for peer in ("ImageMagick convert -coalesce", "ffmpeg"):
            if "wall" in ex.get(peer, {}):
                r = ck["wall"] / ex[peer]["wall"]
                target(f"explode 100-frame GIF: wall time at most 0.5x {peer}", f"{r:.3f}x", r <= 0.5)
        target("explode: peak RSS under 50 MB", f"{mb(ck['rss_kb'])} MB", ck["rss_kb"] < 50 * 1024)
    storyboard.targets(results, target, mb)
    add("")
    missed = sum(1 for t in T if t is False)
    add(f"{missed} target(s) missed." if missed else "All targets met.")
    add("")

    # notes
    add("## How it is measured")
    add("")
    add("- Inputs are made by `bench/gen_inputs.sh` with ffmpeg's test sources (testsrc2 averaged with a turning "
        "spiral gradient, light temporal grain; H.264 CRF 20), cached in `bench/cache/`.")
    add("- Wall time: the command's elapsed time from the driver (GNU time adds about 1 ms for every tool). Peak RSS: "
        "GNU time `%M`, the largest single process of the command (for a loop of 50 calls, the largest call). "
        "`ffmpeg recipe + gifsicle -O3` is the recipe's run followed by gifsicle on its output: times added, RSS the larger.")
    add("- GIF quality (`bench/quality.py`): each GIF is decoded by ffmpeg (composited frames, checked frame for frame "
        "against Pillow's decoder) and sampled by its own delays at the middle of each 1/fps tick; tick i is compared "
        "with the source frame on screen at i/fps (`fps=10:round=up`, the frame clipkit's timing promises) scaled to "
        "the GIF's size with lanczos, both turned to grey by `format=rgb24,format=gray`. The second SSIM column uses "
        "ffmpeg's default `fps=10` (round=near) reference instead, the timing ffmpeg's own GIFs follow. SSIM is ffmpeg's "
        "ssim filter's formula (checked equal to it); PSNR avg is from the mean MSE. Duration Δ is the GIF's total "
        "delay minus the source's duration (stream duration; browsers' 0/1 cs rule applied).")
    add("- Start-up: each command runs once untimed (the clipkit thumb run writes the output), then "
        f"{startup_runs} times alternating with the others, timed by the driver (`time.perf_counter` around "
        "`subprocess.run`, output to /dev/null, no GNU time). The up-to-date thumb is `clipkit thumb IN.mp4 -o OUT.png` "
        "without --force over the output of the untimed run: it must skip it (a rerun that rewrites the output is "
        "flagged and misses the target). ffmpeg -version and a whole ffmpegthumbnailer thumbnail are there for scale.")
    add("- Incremental batch: the second run models CI. Before it, the clips are copied into a fresh directory "
        "(contents only: their modification times are now, later than the outputs') and the first run's output "
        "directory, clipkit's state file included, is copied with its files' times kept (a cache restore); clipkit "
        "then reruns over the copied clips into the copied outputs, without --force. The ratio is the first run's "
        "wall time over the rerun's; `outputs rewritten` counts the restored outputs the rerun wrote again.")
    add("- Decode limit: `clipkit gif CLIP --fps 10` (480 px wide) against `ffmpeg -i CLIP -f null -`, which decodes "
        "every frame (frame threads, one more than the cores) and converts nothing. The clip (CRF 26, half the grain of "
        "the others) has runs of three B-frames with x264's default b-pyramid: the middle B-frame of each run is a "
        "reference frame, so only the outer two of a run can be left undecoded. The target's cell gives CPU "
        "time (user+sys from rusage) beside wall time: on a shared machine it is the steadier comparison.")
    add("- `other load` is the CPU time the rest of the machine used while a tool ran (busy time in /proc/stat minus "
        "the tool's own CPU time from rusage), in cores, over all runs of the row: above about 0.3 the timings of that "
        "row are disturbed. /proc/stat counts 10 ms ticks, so for rows of sub-second runs it is rough (about +-0.1).")
    add("- Caveats: the inputs are synthetic (test patterns, gradients, grain), so GIF sizes differ from real footage's. "
        "`ffmpeg -vf scale=320:-1` makes a 320 px *wide* thumbnail (a portrait clip gives 320x569) and keeps 10-bit "
        "sources at 16 bits per channel, so its bytes are not comparable there; clipkit and ffmpegthumbnailer fit a "
        "320 px box. ImageMagick writes time stamps into its PNGs (its outputs differ between runs). gifsicle "
        "--explode writes GIFs, not PNGs: speed only. Explode output bytes mostly measure each tool's PNG compression.")
    notes = []
    for task, label, rows, _ in results:
        for name, row in rows.items():
            q = row.get("q") or {}
            if q.get("warning"):
                notes.append(f"{task} {label} {name}: {q['warning']}")
            pc = q.get("pillow_check")
            if pc and pc[1]:
                notes.append(f"{task} {label} {name}: ffmpeg and Pillow composite {pc[1]} of {pc[0]} frames differently "
                             f"(max difference {pc[2]})")
            if q.get("ticks_past_end"):
                notes.append(f"{task} {label} {name}: the GIF ends {q['ticks_past_end']} tick(s) before the source")
            if q.get("stored_delays_below_2cs"):
                notes.append(f"{task} {label} {name}: {q['stored_delays_below_2cs']} delay(s) below 2 cs")
            if row.get("error"):
                notes.append(f"{task} {label} {name}: {row['error']}")
    if notes:
        add("")
        add("Notes from this run:")
        add("")
        for n in notes:
            add(f"- {n}")
    add("")
    return "\n".join(L)


if __name__ == "__main__":
    main()
