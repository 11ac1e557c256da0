#!/usr/bin/env python3
"""`clipkit report` rows for the benchmark: 1,000 clips without a baseline (wall time, index.html
bytes, first contentful paint in headless Chromium, the same bytes twice) and one changed clip with --baseline.

Usage: python3 bench/report.py [CLIPKIT] (default .build/release/clipkit). Prints Markdown rows.
The 1,000 clips are JSON lines naming real outputs of one clip (a GIF, a poster, a storyboard),
so the time is the report's own: reading lines, sizing outputs, writing the pages.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, cwd):
    started = time.perf_counter()
    result = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if result.returncode not in (0, 1):
        sys.exit(f"bench/report.py: {' '.join(args)} failed: {result.stderr.decode()}")
    return time.perf_counter() - started, result.stdout.decode()


def cpu_and_wall(args, cwd, runs=3):
    """The fastest of `runs` runs: wall seconds, and CPU seconds (user + system), which a machine
    shared with other work disturbs far less than wall time."""
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall, _ = run(args, cwd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = (min(best[0], wall), min(best[1], cpu)) if best else (wall, cpu)
    return best


def first_paint(url):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url)
        time.sleep(0.5)
        return driver.execute_script(
            "var p = performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : null;")
    finally:
        driver.quit()


def main():
    clipkit = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "clipkit"))
    work = tempfile.mkdtemp(prefix="clipkit-bench-report-")
    try:
        clip = os.path.join(ROOT, "Fixtures", "video", "counter.mp4")
        os.makedirs(os.path.join(work, "out"))
        os.makedirs(os.path.join(work, "base"))
        lines = []
        for args in (["gif", clip, "-o", "out/c.gif"], ["thumb", clip, "-o", "out/c.png"], ["storyboard", clip, "-o", "out/c.storyboard"]):
            lines.append(json.loads(run([clipkit] + args + ["--json"], work)[1]))
        with open(os.path.join(work, "runs.jsonl"), "w") as runs:
            for index in range(1000):
                for line in lines:
                    runs.write(json.dumps(dict(line, input=f"/media/clip-{index:04d}.mp4"), sort_keys=True) + "\n")
        seconds, cpu = cpu_and_wall([clipkit, "report", "runs.jsonl", "-o", "out/report"], work)
        digest = open(os.path.join(work, "out", "report", "index.html"), "rb").read()
        run([clipkit, "report", "runs.jsonl", "-o", "out/report"], work)
        same = digest == open(os.path.join(work, "out", "report", "index.html"), "rb").read()
        size = os.path.getsize(os.path.join(work, "out", "report", "index.html"))
        paint = first_paint("file://" + os.path.join(work, "out", "report", "index.html"))
        # One changed 4 s clip against a baseline: one decode of each version's GIF.
        run([clipkit, "gif", clip, "-o", "out/d.gif", "--json"], work)
        base = run([clipkit, "gif", clip, "-o", "base/d.gif", "--colors", "64", "--json"], work)[1]
        now = run([clipkit, "gif", clip, "-o", "out/d.gif", "--json"], work)[1]
        open(os.path.join(work, "base.jsonl"), "w").write(base)
        open(os.path.join(work, "now.jsonl"), "w").write(now)
        run([clipkit, "report", "base.jsonl", "-o", "base/report", "--copy"], work)
        alone, _ = run([clipkit, "report", "now.jsonl", "-o", "out/plain"], work)
        compared, _ = run([clipkit, "report", "now.jsonl", "-o", "out/compared", "--baseline", "base/report"], work)
        print("| report | figure | target |")
        print("|---|---|---|")
        print(f"| 1,000 clips (3,000 lines), no baseline | {seconds:.2f} s wall, {cpu:.2f} s CPU (best of 3) | at most 2 s beyond reading the JSON |")
        print(f"| index.html the same bytes on a second run | {'yes' if same else 'NO'} | byte-identical |")
        print(f"| index.html for 1,000 clips | {size / 1e6:.2f} MB | under 2 MB |")
        print(f"| first contentful paint, 1,000 clips, headless Chromium | {'%.0f ms' % paint if paint is not None else 'n/a (no selenium)'} | under 1 s |")
        print(f"| one changed 4 s clip with --baseline | {compared:.2f} s ({alone:.2f} s without) | one decode of each version's GIF |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
