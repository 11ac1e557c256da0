#!/usr/bin/env python3
"""SSIMULACRA2 rate-distortion sweep of clipkit's GIF size settings against the anchors (issue 20).

  python3 bench/rd_sweep20.py --clipkit .build/release/clipkit [--seconds 3] [--clips 720p,1080p,screen,natural]

Per clip (bench/rd_clips.py), measured as bench/rd_eval.py measures (same anchors, cached): clipkit defaults,
--quality 10/25/35/50/60/75/90/95/100, --lossy 20/40/80/150, --max-bytes at 25/50/75% of the default's bytes.
Writes bench/cache/rd20-CLIP-Ns.json (one per clip; --replot puts stored clips together), the markdown section (tables, BD-rates, PASS/MISS targets) to
bench/cache/rd20.md, and the plot bench/rd20.png (bytes vs SSIMULACRA2 mean, one panel per clip).

BD-rate: mean difference of log(bytes) at equal SSIMULACRA2 over the overlapping score range, each curve
piecewise linear in log-bytes (points sorted by score), as exp(mean) - 1; negative = clipkit smaller.
"""

import argparse
import json
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rd_clips  # noqa: E402
import rd_eval  # noqa: E402

QUALITY = (10, 25, 35, 50, 60, 75, 90, 95, 100)
LOSSY = (20, 40, 80, 150)
MAXB = (0.25, 0.5, 0.75)
TIMED_RUNS = 5
HERE = os.path.dirname(os.path.abspath(__file__))


def bd_rate(test, anchor):
    """BD-rate of test against anchor (lists of (bytes, score)); None without an overlapping score range."""
    if len(test) < 2 or len(anchor) < 2:
        return None
    t = sorted((s, math.log(b)) for b, s in test)
    a = sorted((s, math.log(b)) for b, s in anchor)
    lo, hi = max(t[0][0], a[0][0]), min(t[-1][0], a[-1][0])
    if hi - lo < 1e-6:
        return None
    g = np.linspace(lo, hi, 200)
    dt = np.interp(g, [p[0] for p in t], [p[1] for p in t])
    da = np.interp(g, [p[0] for p in a], [p[1] for p in a])
    return float(math.exp(float(np.mean(dt - da))) - 1)


def curve_at(points, nbytes):
    return rd_eval.interp_curve([{"bytes": b, "ssimulacra2": s} for b, s in points], nbytes)


def sweep_clip(clipkit, name, seconds):
    src = rd_clips.make(name, seconds)
    tag = "short" if seconds == 3 else f"{seconds:g}s"
    stride = rd_eval.STRIDE if seconds <= 3 else max(rd_eval.STRIDE, int(round(seconds * rd_eval.FPS / 12)))
    curves = rd_eval.anchors(name, src, stride=stride, tag=tag)
    pts = []
    with tempfile.TemporaryDirectory(prefix="rd20") as tmp:
        def run(label, family, opts, knob=None):
            out = os.path.join(tmp, "o.gif")
            # Timed once here; the default and the --max-bytes points again below, interleaved.
            secs = rd_eval.encode(clipkit, src, out, opts)
            m = rd_eval.measure(out, src, stride=stride)
            p = dict(label=label, family=family, knob=knob, opts=opts, bytes=os.path.getsize(out),
                     seconds=round(secs, 3), **m)
            print(f"  {name}: {label}: {p['bytes']:,} B, {p['ssimulacra2']:.1f}", file=sys.stderr)
            pts.append(p)
            return p
        d = run("default", "default", [])
        for q in QUALITY:
            run(f"--quality {q}", "quality", ["--quality", str(q)], q)
        for n in LOSSY:
            run(f"--lossy {n}", "lossy", ["--lossy", str(n)], n)
        for f in MAXB:
            lim = int(d["bytes"] * f)
            p = run(f"--max-bytes {lim} ({f:.0%})", "maxbytes", ["--max-bytes", str(lim)], f)
            p["limit"] = lim
        # The --max-bytes time target is a ratio of runs of 0.2-1.5 s on a 3 s cut. Each point's
        # time is the best of five (the output is the same every time), and the five rounds run
        # the default and the three fits one after another, so that what else the machine does
        # weighs on both sides of the ratio alike: timed minutes apart (the default first, the
        # fits last), the screen cut's default took a best of 0.22 s in one sweep and 0.27-0.33 s in
        # runs by hand the same hour, and its fits came out at 1.6-3.0x it.
        timed = [p for p in pts if p["family"] in ("default", "maxbytes")]
        for _ in range(TIMED_RUNS):
            for p in timed:
                p["seconds"] = round(min(p["seconds"], rd_eval.encode(clipkit, src, os.path.join(tmp, "t.gif"), p["opts"])), 3)
    return dict(clip=name, seconds=seconds, stride=stride, points=pts, anchors=curves)


def analyse(res):
    """Adds BD-rates and target verdicts to each clip's result; returns the PASS/MISS lines."""
    lines = []
    all_best, all_mono, all_maxb = True, True, True
    for r in res:
        pts, curves = r["points"], r["anchors"]
        d = next(p for p in pts if p["family"] == "default")
        fam = lambda f: [(p["bytes"], p["ssimulacra2"]) for p in pts if p["family"] == f]  # noqa: E731
        clip_curves = {"quality": fam("quality"), "lossy": [(d["bytes"], d["ssimulacra2"])] + fam("lossy"),
                       "all": [(p["bytes"], p["ssimulacra2"]) for p in pts]}
        anc = {k: [(p["bytes"], p["ssimulacra2"]) for p in v] for k, v in curves.items() if len(v) >= 2}
        r["bd"] = {f"{c} vs {k}": bd_rate(cv, av) for c, cv in clip_curves.items() if c != "all"
                   for k, av in anc.items()}
        # best clipkit at each size: the upper envelope of its families (each interpolated)
        grid = np.exp(np.linspace(math.log(0.25 * d["bytes"]), math.log(d["bytes"]), 16))
        worst = None
        for b in grid:
            ours = [curve_at(cv, b) for c, cv in clip_curves.items() if c != "all"]
            ours = [s for s in ours if s is not None]
            theirs, which = rd_eval.best_anchor(curves, b)
            if not ours or theirs is None:
                continue
            m = max(ours) - theirs
            if worst is None or m < worst[0]:
                worst = (m, b, which)
        r["worst_margin"] = worst
        ok = worst is not None and worst[0] >= 0
        all_best &= ok
        lines.append(f"- {'PASS' if ok else 'MISS'}: {r['clip']}: clipkit >= best anchor at every size 25-100% of "
                     f"default: " + ("no overlap" if worst is None else
                                     f"worst margin {worst[0]:+.1f} at {worst[1]:,.0f} B (vs {worst[2]})"))
        q = sorted((p for p in pts if p["family"] == "quality"), key=lambda p: p["knob"])
        mono = all(a["bytes"] < b["bytes"] and a["ssimulacra2"] < b["ssimulacra2"] for a, b in zip(q, q[1:]))
        all_mono &= mono
        qs = ", ".join("%s: %s/%.1f" % (p["knob"], f"{p['bytes']:,}", p["ssimulacra2"]) for p in q)
        lines.append(f"- {'PASS' if mono else 'MISS'}: {r['clip']}: --quality strictly monotone in bytes and "
                     f"SSIMULACRA2 ({qs})")
        bd = r["bd"].get("quality vs recipe+gifsicle")
        ok = bd is not None and bd <= -0.30
        lines.append(f"- {'PASS' if ok else 'MISS'}: {r['clip']}: BD-rate --quality vs recipe+gifsicle -O3 --lossy "
                     f"<= -30%: " + ("no overlap" if bd is None else f"{bd:+.1%}"))
        if r["clip"] == "720p":
            q50 = next(p for p in q if p["knob"] == 50)
            ok = q50["ssimulacra2"] >= 60
            lines.append(f"- {'PASS' if ok else 'MISS'}: 720p: --quality 50 SSIMULACRA2 >= 60: {q50['ssimulacra2']:.1f}")
        for p in (p for p in pts if p["family"] == "maxbytes"):
            frac = p["bytes"] / p["limit"]
            theirs, which = rd_eval.best_anchor(curves, p["bytes"])
            tr = p["seconds"] / max(d["seconds"], 1e-6)
            ok = 0.9 <= frac <= 1.0 and (theirs is None or p["ssimulacra2"] >= theirs) and tr <= 2.2
            all_maxb &= ok
            lines.append(f"- {'PASS' if ok else 'MISS'}: {r['clip']}: {p['label']}: {frac:.1%} of limit, "
                         f"{p['ssimulacra2']:.1f} vs anchor {('- (no anchor curve reaches this size)' if theirs is None else f'{theirs:.1f}')}, "
                         f"time {tr:.2f}x default (best of {TIMED_RUNS} each)")
        lines.append(f"- record: {r['clip']}: default {d['bytes']:,} B, {d['seconds']:.2f} s, SSIMULACRA2 "
                     f"{d['ssimulacra2']:.1f} (p5 {d['ssimulacra2_p5']:.1f}), SSIM {d['ssim']:.4f}")
    return lines


def markdown(res, lines, head):
    out = [head, ""]
    for r in res:
        out += [f"#### {r['clip']} ({r['seconds']:g} s, 10 fps, 480 wide, every {r['stride']}th tick scored)", "",
                "| output | bytes | SSIMULACRA2 mean | p5 | luma SSIM | s |", "|---|---:|---:|---:|---:|---:|"]
        for p in r["points"]:
            out.append(f"| clipkit {p['label']} | {p['bytes']:,} | {p['ssimulacra2']:.1f} | {p['ssimulacra2_p5']:.1f} "
                       f"| {p['ssim']:.4f} | {p['seconds']:.2f} |")
        for k, v in r["anchors"].items():
            for p in v:
                out.append(f"| {p['label']} | {p['bytes']:,} | {p['ssimulacra2']:.1f} | {p['ssimulacra2_p5']:.1f} "
                           f"| {p['ssim']:.4f} | |")
        out += ["", "BD-rate (bytes at equal SSIMULACRA2): " +
                "; ".join(f"{k} {('n/a' if v is None else f'{v:+.1%}')}" for k, v in r["bd"].items()), ""]
    out += ["#### Targets", ""] + lines + [""]
    return "\n".join(out)


def plot(res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(res), figsize=(5.5 * len(res), 4.6), squeeze=False)
    for ax, r in zip(axes[0], res):
        pts = r["points"]
        for fam, style in (("quality", "o-"), ("lossy", "s-"), ("maxbytes", "D")):
            pp = sorted((p for p in pts if p["family"] in ((fam, "default") if fam == "lossy" else (fam,))),
                        key=lambda p: p["bytes"])
            ax.plot([p["bytes"] / 1e3 for p in pp], [p["ssimulacra2"] for p in pp], style, ms=4,
                    label=f"clipkit {'--' + fam if fam != 'maxbytes' else '--max-bytes'}")
        d = next(p for p in pts if p["family"] == "default")
        ax.plot([d["bytes"] / 1e3], [d["ssimulacra2"]], "k*", ms=10, label="clipkit default")
        for k, v in r["anchors"].items():
            vv = sorted(v, key=lambda p: p["bytes"])
            ax.plot([p["bytes"] / 1e3 for p in vv], [p["ssimulacra2"] for p in vv], "x--" if len(vv) > 1 else "x",
                    ms=5, alpha=0.8, label=k)
        ax.set_xscale("log")
        ax.set_title(f"{r['clip']} ({r['seconds']:g} s)")
        ax.set_xlabel("kB (log)")
        ax.set_ylabel("SSIMULACRA2 mean")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clipkit", required=True)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--clips", default=",".join(rd_clips.CLIPS))
    ap.add_argument("--replot", action="store_true", help="redo the analysis and plot from the stored per-clip results")
    a = ap.parse_args()
    res = []
    for c in a.clips.split(","):
        # one file per clip, so clips can be swept by separate runs and put together with --replot
        store = os.path.join(HERE, "cache", f"rd20-{c}-{a.seconds:g}s.json")
        if not a.replot:
            swept = sweep_clip(os.path.abspath(a.clipkit), c, a.seconds)
            os.makedirs(os.path.dirname(store), exist_ok=True)
            with open(store + ".part", "w") as f:
                json.dump(swept, f, indent=1)
            os.replace(store + ".part", store)
        with open(store) as f:
            res.append(json.load(f))
    lines = analyse(res)
    md = markdown(res, lines, "### SSIMULACRA2 rate-distortion (issue 20)")
    with open(os.path.join(HERE, "cache", "rd20.md"), "w") as f:
        f.write(md)
    print(md)
    plot(res, os.path.join(HERE, "rd20.png"))


if __name__ == "__main__":
    main()
