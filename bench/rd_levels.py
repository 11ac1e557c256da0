#!/usr/bin/env python3
"""BD-rate of `clipkit --quality` levels on the 3 s cuts, against recipe + gifsicle -O3 --lossy and against a saved curve.

    python3 bench/rd_levels.py --clipkit BIN --tag NAME [--clips natural,720p] [--levels 35,50,60,75,90] [--base NAME] [-- clipkit options]

For tuning experiments (issue 20): each clip's points (bytes, SSIMULACRA2 mean, from bench/rd_eval.py's measure)
are cached in bench/cache/rd_levels-NAME.json, so a build made for an experiment (a knob read from the
environment, say) is compared with `--base` (another tag's saved curve) as bytes at equal SSIMULACRA2, the
BD-rate bench/rd_sweep20.py computes (linear in log-bytes over the overlapping score range). The environment
passes through to clipkit.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rd_sweep20 import bd_rate as bd  # noqa: E402  (the bench's own BD-rate)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clipkit", required=True)
    ap.add_argument("--tag", required=True, help="name of this curve's cache")
    ap.add_argument("--clips", default="natural,720p,1080p,screen")
    ap.add_argument("--levels", default="35,50,60,75,90")
    ap.add_argument("--base", help="a tag already measured, to compare with")
    ap.add_argument("opts", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    extra = a.opts[1:] if a.opts[:1] == ["--"] else a.opts
    levels = [int(x) for x in a.levels.split(",")]
    cache = os.path.join(HERE, "cache", f"rd_levels-{a.tag}.json")
    res = json.load(open(cache)) if os.path.exists(cache) else {}
    for clip in a.clips.split(","):
        for q in levels:
            key = f"{clip}:{q}"
            if key in res:
                continue
            r = subprocess.run([sys.executable, os.path.join(HERE, "rd_eval.py"), "--clipkit", a.clipkit, "--clips", clip, "--json",
                                "--", "--quality", str(q)] + extra, capture_output=True, text=True, check=True)
            j = json.loads(r.stdout)["clips"][0]
            res[key] = (j["bytes"], j["ssimulacra2"])
            json.dump(res, open(cache, "w"))
        pts = [res[f"{clip}:{q}"] for q in levels]
        anchors = json.load(open(os.path.join(HERE, "cache", "rd_eval", f"anchors-short-{clip}-10fps-w480-s3.v1.json")))
        recipe = [(p["bytes"], p["ssimulacra2"]) for p in anchors["recipe+gifsicle"]]
        line = f"{clip:8s} " + " ".join(f"{q}:{b / 1000:.0f}K/{s:.1f}" for q, (b, s) in zip(levels, pts))
        v = bd(pts, recipe)
        line += f"  BD vs recipe+gifsicle {v * 100:+.1f}%" if v is not None else "  BD vs recipe+gifsicle -"
        if a.base:
            base_file = os.path.join(HERE, "cache", f"rd_levels-{a.base}.json")
            base = json.load(open(base_file)) if os.path.exists(base_file) else {}
            bp = [base[f"{clip}:{q}"] for q in levels if f"{clip}:{q}" in base]
            v = bd(pts, bp) if len(bp) >= 2 else None
            if v is not None:
                line += f"  vs {a.base} {v * 100:+.1f}%"
        print(line, flush=True)


if __name__ == "__main__":
    main()
