"""Does clipkit's own measurement (`gif --measure`: `ssim`, `duration_error_ms` in --json) agree with
the bench's independent one (quality.measure: the GIF decoded by ffmpeg, the source ticks scaled with
lanczos, the `up` figure)? Issue target: within 0.005 SSIM. Untimed: one run per setting."""

import json
import os
import subprocess

import quality

SETTINGS = (("default", []), ("--lossy 80", ["--lossy", "80"]), ("--quality 25", ["--quality", "25"]),
            ("--colors 32 --dither bayer", ["--colors", "32", "--dither", "bayer"]))
TOLERANCE = 0.005


def run(clipkit, src, label, work, refs, force, log, max_bytes=None):
    """One row per setting (plus `--max-bytes max_bytes` when given): clipkit's figures and the bench's."""
    settings = list(SETTINGS) + ([(f"--max-bytes {max_bytes}", ["--max-bytes", str(max_bytes)])] if max_bytes else [])
    rows = []
    for name, extra in settings:
        out = os.path.join(work, f"measure_{len(rows)}.gif")
        p = subprocess.run([clipkit, "gif", *force, src, "--fps", "10", "--width", "480", "--json", "--measure", "-o", out, *extra],
                           capture_output=True, text=True)
        row = {"clip": label, "setting": name}
        if p.returncode != 0:
            row["error"] = p.stderr.strip().splitlines()[-1:] or [f"exit {p.returncode}"]
            rows.append(row)
            continue
        report = json.loads(p.stdout.splitlines()[0])
        q = quality.measure(out, src, 10, refs, check_pillow=False)
        row |= {"clipkit_ssim": report["ssim"], "bench_ssim": q["ssim_mean_up"],
                "clipkit_duration_error_ms": report["duration_error_ms"], "bench_duration_delta_ms": q["duration_delta_ms"],
                "bytes": report["bytes"]}
        log(f"  measure: {label} {name}: clipkit {report['ssim']:.4f}, bench {q['ssim_mean_up']:.4f}")
        rows.append(row)
    return rows


def markdown(rows):
    """The section: a row per GIF and the target line."""
    if not rows:
        return ""
    lines = ["", "## clipkit's own measurement against the bench's", "",
             "`clipkit gif --measure --json` reports `ssim` (what a viewer sees at each tick against the source frame, "
             "measured while writing) and `duration_error_ms`; the bench measures the same file independently "
             "(bench/quality.py: ffmpeg decodes the GIF, the source ticks are scaled with lanczos; the `up` figure). "
             "Untimed, one run each.", "",
             "| clip | setting | bytes | SSIM (clipkit) | SSIM (bench) | difference | duration error ms (clipkit / bench) |",
             "|---|---|--:|--:|--:|--:|--:|"]
    worst = 0.0
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['clip']} | {r['setting']} | failed: {r['error']} | | | | |")
            worst = float("inf")
            continue
        d = r["clipkit_ssim"] - r["bench_ssim"]
        worst = max(worst, abs(d))
        lines.append(f"| {r['clip']} | `{r['setting']}` | {r['bytes']:,} | {r['clipkit_ssim']:.4f} | {r['bench_ssim']:.4f} | "
                     f"{d:+.4f} | {r['clipkit_duration_error_ms']} / {r['bench_duration_delta_ms']} |")
    ok = worst <= TOLERANCE
    lines += ["", f"Target: clipkit's SSIM within {TOLERANCE} of the bench's on every row: largest difference "
              f"{worst:.4f}: **{'pass' if ok else 'MISS'}**", ""]
    return "\n".join(lines)
