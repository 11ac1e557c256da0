"""`clipkit thumb --pick best` for the clipkit benchmark: what choosing a poster costs.

Target: `--pick best` on the 60 s 1080p clip takes at most 1.5x the time of a first-frame thumbnail
(`clipkit thumb CLIP`) plus one pass of keyframe decoding (`ffmpeg -skip_frame nokey -i CLIP -f null -`,
which decodes the keyframes and converts nothing): the picker's own work (scaling candidates to 160 px,
scoring, the few frames decoded after the picked keyframe, taking the winner at 320 px) must stay small
beside the decoding it cannot avoid.

The three commands run alternately, `runs` rounds; figures are medians of wall time and CPU time
(user + sys). The pick's time and score come from its --json line; every run must pick the same frame
and write the same bytes (determinism).

    run(clipkit, src, runs, workdir, timer=None)  -> result dict: what bench.py calls
    target(result)                                -> (description, measured, ok) for bench.py's target table

Standalone (after `swift build -c release --product clipkit`):
    python3 bench/pick.py --clipkit .build/release/clipkit --src bench/cache/src60_1080p.mp4 [--runs 5]
"""

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time

TARGET = 1.5
FF = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin"]


def _timer(cmd):
    """Wall and CPU seconds (user + sys of the child) of one command; stdout returned for --json."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)[:200]}: {err[-1] if err else ''}")
    return {"wall": wall, "cpu": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)}


def commands(clipkit, src, workdir):
    first = os.path.join(workdir, "pick-first.png")
    best = os.path.join(workdir, "pick-best.png")
    return {
        "first-frame thumbnail": ([clipkit, "thumb", "--force", src, "-o", first], first),
        "keyframe decode (ffmpeg -skip_frame nokey)": (FF + ["-skip_frame", "nokey", "-i", src, "-f", "null", "-"], None),
        "--pick best": ([clipkit, "thumb", "--force", src, "--pick", "best", "--json", "-o", best], best),
    }


def run(clipkit, src, runs, workdir, timer=None):
    """Times the three commands alternately. `timer(cmd)` -> dict with "wall" and "cpu" (bench.py passes its
    run_timed, which adds peak RSS and the machine's other load); the --pick best command is run once more
    untimed to read its --json line (bench.py's timer discards stdout)."""
    os.makedirs(workdir, exist_ok=True)
    timer = timer or _timer
    cmds = commands(clipkit, src, workdir)
    samples = {name: [] for name in cmds}
    digests = set()
    names = list(cmds)
    for r in range(runs):
        for name in names[r % len(names):] + names[:r % len(names)]:
            cmd, out = cmds[name]
            samples[name].append(timer(cmd))
            if name == "--pick best":
                with open(out, "rb") as f:
                    digests.add(hashlib.sha256(f.read()).hexdigest())
    cmd, out = cmds["--pick best"]
    line = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, check=True).stdout.decode()
    with open(out, "rb") as f:
        digests.add(hashlib.sha256(f.read()).hexdigest())
    report = json.loads(line.splitlines()[0])
    rows = {}
    for name, xs in samples.items():
        rows[name] = {"wall": statistics.median(x["wall"] for x in xs), "cpu": statistics.median(x["cpu"] for x in xs),
                      "wall_min": min(x["wall"] for x in xs), "wall_max": max(x["wall"] for x in xs), "runs": len(xs)}
        if all("rss_kb" in x for x in xs):
            rows[name]["rss_kb"] = max(x["rss_kb"] for x in xs)
    return {"src": src, "rows": rows, "pick": (report.get("picks") or [None])[0], "deterministic": len(digests) == 1}


def target(result):
    """The target row: --pick best against first-frame thumbnail + keyframe pass, wall time (CPU time beside)."""
    rows = result["rows"]
    a, k, p = rows["first-frame thumbnail"], rows["keyframe decode (ffmpeg -skip_frame nokey)"], rows["--pick best"]
    ratio = p["wall"] / (a["wall"] + k["wall"])
    cpu_ratio = p["cpu"] / (a["cpu"] + k["cpu"])
    pick = result["pick"] or {}
    measured = (f"{ratio:.2f}x ({p['wall']:.3f} s vs {a['wall']:.3f} + {k['wall']:.3f} s; CPU {cpu_ratio:.2f}x, "
                f"{p['cpu']:.3f} s vs {a['cpu']:.3f} + {k['cpu']:.3f} s; picked {pick.get('time')} s, score "
                f"{pick.get('score')}" + ("" if result["deterministic"] else "; **outputs differ between runs**") + ")")
    name = os.path.basename(result["src"])
    return (f"thumb --pick best ({name}): wall time at most {TARGET}x a first-frame thumbnail plus one keyframe "
            f"decoding pass, same pick every run", measured, ratio <= TARGET and result["deterministic"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--clipkit", default=os.path.join(here, "..", ".build", "release", "clipkit"))
    ap.add_argument("--src", default=os.path.join(here, "cache", "src60_1080p.mp4"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workdir", default=os.path.join(here, "cache", "work", "pick"))
    a = ap.parse_args()
    result = run(os.path.abspath(a.clipkit), a.src, a.runs, a.workdir)
    for name, row in result["rows"].items():
        print(f"{name:45s} wall {row['wall']:.3f} s ({row['wall_min']:.3f}-{row['wall_max']:.3f})  CPU {row['cpu']:.3f} s")
    desc, measured, ok = target(result)
    print(f"{desc}: {measured}: {'pass' if ok else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
