#!/usr/bin/env python3
"""clipkit report's page in a real browser (Debian's chromium + chromedriver, selenium).

Usage: python3 Tests/Browser/report_browser_test.py [CLIPKIT] [--screenshots DIR]

Makes real runs with CLIPKIT (default .build/debug/clipkit) on Fixtures/video clips, writes a
report (and a second one against it as --baseline), then opens them from file:// and from a
local http://127.0.0.1 server sending `Content-Security-Policy: default-src 'self'`, and checks:
no console errors or CSP violations, every image and video loads, the storyboard scrubber at
10/30/60/90% shows the tile storyboard.json predicts, arrow keys move it, filter chips and the URL
hash, j/k/? keys, reduced motion keeps posters, and with JavaScript off posters and tables still
show; sheets are fetched only near the viewport, tall pictures are capped, and the --single-file
page shows everything from one copy of each file (report_browser_loading.py). Also parses the README's workflow YAML. Screenshots at two widths go to DIR (default
.build/report-screenshots). Ends with `N passed, N failed`; exits 1 on any failure.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from report_browser_loading import lazy_sheet_checks, single_file_checks, tall_checks
from report_browser_support import browser, broken_media, check, console_problems, load_everything, results, run, screenshots, serve

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_report(clipkit, work):
    video = os.path.join(ROOT, "Fixtures", "video")
    counter = os.path.join(work, 'count"<b>|x.mp4')  # a hostile name, escaped everywhere
    shutil.copy(os.path.join(video, "counter.mp4"), counter)
    motion = os.path.join(work, "motion.mp4")  # beside the others: clips sort by input path, wherever the checkout is
    shutil.copy(os.path.join(video, "motion.mp4"), motion)
    tall = os.path.join(work, "tall.mp4")  # 32x6560: its pictures are capped in height
    shutil.copy(os.path.join(video, "tall.mp4"), tall)
    commands = [
        ["gif", counter, motion, "-o", "out/gifs/", "--width", "160"],
        ["gif", motion, "-o", "out/gifs/motion.mp4", "--width", "160"],
        ["thumb", counter, motion, "-o", "out/posters/"],
        ["storyboard", counter, "-o", "out/boards/counter.storyboard", "--interval", "0.5", "--format", "png"],
        ["explode", counter, "-o", "out/frames/", "--fps", "2"],
        ["info", counter, motion],
        ["gif", tall, "-o", "out/gifs/", "--width", "32"],
        ["thumb", tall, "-o", "out/posters/"],
        ["gif", os.path.join(work, "missing.mp4"), "-o", "out/gifs/"],
    ]
    with open(os.path.join(work, "run.jsonl"), "wb") as lines:
        for command in commands:
            run([clipkit] + command + ["--json"], work, stdout=lines)
    first = run([clipkit, "report", "run.jsonl", "-o", "out/report", "--budget", "gif=60KB", "--single-file", "out/single.html"], work)
    check("clipkit report exits 0", first.returncode == 0, first.stderr.decode())
    second = run([clipkit, "report", "run.jsonl", "-o", "out/again", "--baseline", "out/report"], work)
    check("clipkit report --baseline exits 0", second.returncode == 0, second.stderr.decode())
    return os.path.join(work, "out")


def check_page(driver, url, label, out):
    driver.get(url)
    load_everything(driver)
    check(f"{label}: every image and video loads", not broken_media(driver), str(broken_media(driver)))
    scrubber_checks(driver, label, out)
    filter_checks(driver, url, label)
    key_checks(driver, label)
    problems = console_problems(driver)
    check(f"{label}: no console errors or CSP violations", not problems, str(problems))


def sheet_percent(offset, tile, sheet):
    return 100 * offset / (sheet - tile) if sheet > tile else 0


def percents(text):
    return [float(part.rstrip("%")) for part in text.split()]


def scrubber_checks(driver, label, out):
    manifest = json.load(open(os.path.join(out, "boards", "counter.storyboard", "storyboard.json")))
    scrubber = driver.find_element(By.CSS_SELECTOR, ".scrubber.live")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", scrubber)
    width = scrubber.size["width"]
    # As wide as the media (480 px) here, not one tile (160 px), the tile's aspect ratio kept.
    box = driver.execute_script("var r = arguments[0].querySelector('.tile').getBoundingClientRect(); return [r.width, r.height];", scrubber)
    ratio = manifest["tile"]["width"] / manifest["tile"]["height"]
    check(f"{label}: scrubber as wide as the media, the tile's shape kept", width >= 470 and abs(box[0] / box[1] - ratio) < 0.02, f"{width} {box} {ratio}")
    for percent in (10, 30, 60, 90):
        moment = manifest["duration_ms"] * percent / 100
        expected = next(i for i, tile in enumerate(manifest["tiles"]) if tile["start_ms"] <= moment < tile["end_ms"])
        tile = manifest["tiles"][expected]
        ActionChains(driver).move_to_element_with_offset(scrubber, int(width * percent / 100 - width / 2), 0).perform()
        shown = scrubber.get_attribute("data-tile")
        view = driver.execute_script("var s = getComputedStyle(arguments[0].querySelector('.tile')); return [s.backgroundImage, s.backgroundPosition, s.backgroundSize];", scrubber)
        sheet = manifest["sheets"][tile["sheet"]]
        position = [sheet_percent(tile["x"], manifest["tile"]["width"], sheet["width"]), sheet_percent(tile["y"], manifest["tile"]["height"], sheet["height"])]
        size = [100 * sheet["width"] / manifest["tile"]["width"], 100 * sheet["height"] / manifest["tile"]["height"]]
        ok = (shown == str(expected) and view[0].endswith(sheet["file"] + '")')
              and all(abs(a - b) < 0.01 for a, b in zip(percents(view[1]) + percents(view[2]), position + size)))
        check(f"{label}: scrubber at {percent}% shows tile {expected}", ok, f"shown {shown} {view} expected {position} {size}")
    scrubber.click()
    before = int(scrubber.get_attribute("data-tile"))
    scrubber.send_keys(Keys.ARROW_RIGHT)
    after_right = int(scrubber.get_attribute("data-tile"))
    scrubber.send_keys(Keys.ARROW_LEFT)
    scrubber.send_keys(Keys.ARROW_LEFT)
    after_left = int(scrubber.get_attribute("data-tile"))
    check(f"{label}: arrow keys move the scrubber", after_right == min(before + 1, len(manifest["tiles"]) - 1) and after_left == max(after_right - 2, 0),
          f"{before} {after_right} {after_left}")


def visible_cards(driver):
    return [card.get_attribute("data-status") for card in driver.find_elements(By.CSS_SELECTOR, ".card") if card.is_displayed()]


def filter_checks(driver, url, label):
    driver.execute_script("window.scrollTo(0, 0);")
    check(f"{label}: filters shown with JavaScript", driver.find_element(By.ID, "filters").is_displayed())
    chip = driver.find_element(By.CSS_SELECTOR, '.chip[data-group="status"][data-value="error"]')
    chip.click()
    check(f"{label}: chip pressed", chip.get_attribute("aria-pressed") == "true")
    check(f"{label}: chip filters the cards", visible_cards(driver) == ["error"], str(visible_cards(driver)))
    check(f"{label}: filter kept in the URL hash", driver.execute_script("return location.hash;") == "#f:status=error")
    chip.click()
    check(f"{label}: unpressing shows all", len(visible_cards(driver)) == 4, str(visible_cards(driver)))
    driver.get(url.split("#")[0] + "#f:status=ok")
    ok_chip = driver.find_element(By.CSS_SELECTOR, '.chip[data-group="status"][data-value="ok"]')
    check(f"{label}: hash restores the filter", ok_chip.get_attribute("aria-pressed") == "true" and visible_cards(driver) == ["ok", "ok", "ok"],
          str(visible_cards(driver)))
    search = driver.find_element(By.ID, "filter-text")
    driver.execute_script("location.hash = '';")
    driver.get(url.split("#")[0])
    driver.find_element(By.TAG_NAME, "body").send_keys("/")
    check(f"{label}: / focuses the text filter", driver.switch_to.active_element.get_attribute("id") == "filter-text")
    driver.switch_to.active_element.send_keys("motion")
    check(f"{label}: text filter", len(visible_cards(driver)) == 1, str(visible_cards(driver)))
    del search


def key_checks(driver, label):
    driver.get(driver.current_url.split("#")[0])
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    first = driver.switch_to.active_element.get_attribute("id")
    driver.switch_to.active_element.send_keys("j")
    second = driver.switch_to.active_element.get_attribute("id")
    driver.switch_to.active_element.send_keys("k")
    back = driver.switch_to.active_element.get_attribute("id")
    check(f"{label}: j/k move between clips", (first, second, back) == ("clip-1", "clip-2", "clip-1"), f"{first} {second} {back}")
    driver.switch_to.active_element.send_keys("?")
    check(f"{label}: ? shows the help", driver.find_element(By.ID, "help").is_displayed())
    driver.switch_to.active_element.send_keys("?")
    driver.execute_script("window.scrollTo(0, 0);")
    card = driver.find_elements(By.CSS_SELECTOR, ".card img.poster[data-anim]")[0]
    ActionChains(driver).move_to_element(card).perform()
    check(f"{label}: hover plays the animation", card.get_attribute("src").endswith(".gif"), card.get_attribute("src"))
    driver.find_element(By.ID, "pause-all").click()
    animations = driver.find_elements(By.CSS_SELECTOR, "picture > img.anim")
    check(f"{label}: pause all shows posters", animations and all(a.get_attribute("src").endswith(".png") for a in animations))


def video_times(driver, videos):
    return driver.execute_script("return arguments[0].map(function (v) { return [v.currentTime, v.paused, v.readyState, v.seeking]; });", videos)


def synced_video_checks(driver):
    """motion.mp4 has an MP4 in both runs: the compare view plays, pauses and seeks the two together."""
    videos = driver.find_elements(By.CSS_SELECTOR, ".compare video")
    check("baseline page: the compare view holds both runs' MP4s", len(videos) == 2, str(len(videos)))
    if len(videos) != 2:
        return
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", videos[0])
    deadline = time.time() + 10
    while time.time() < deadline and not all(state[2] >= 2 for state in video_times(driver, videos)):
        time.sleep(0.1)
    check("baseline page: both MP4s load", all(state[2] >= 2 for state in video_times(driver, videos)), str(video_times(driver, videos)))
    play = driver.find_element(By.CSS_SELECTOR, ".compare-controls button.play")
    play.click()
    time.sleep(1.2)
    playing = video_times(driver, videos)
    check("synced videos: play starts both", not playing[0][1] and not playing[1][1] and playing[1][0] > 0.5, str(playing))
    check("synced videos: playing, within 0.1 s of each other", abs(playing[0][0] - playing[1][0]) <= 0.1, str(playing))
    play.click()
    time.sleep(0.3)
    paused = video_times(driver, videos)
    check("synced videos: pause stops both, within 0.1 s", paused[0][1] and paused[1][1] and abs(paused[0][0] - paused[1][0]) <= 0.1, str(paused))
    driver.execute_script("var s = document.querySelector('.compare-controls input.seek'); s.value = '500';"
                          " s.dispatchEvent(new Event('input'));")
    deadline = time.time() + 5
    while time.time() < deadline and any(state[3] for state in video_times(driver, videos)):
        time.sleep(0.05)
    middle = driver.execute_script("return Math.max(arguments[0][0].duration, arguments[0][1].duration) / 2;", videos)
    sought = video_times(driver, videos)
    check("synced videos: seeking moves both to the same moment", all(abs(state[0] - middle) <= 0.1 for state in sought), f"{sought} vs {middle}")
    play.click()
    time.sleep(0.8)
    again = video_times(driver, videos)
    play.click()
    check("synced videos: playing on from the seek, within 0.1 s", again[1][0] > middle and abs(again[0][0] - again[1][0]) <= 0.1, str(again))


def narrow_checks(driver, url):
    # A phone's width (390 px): nothing wider than the screen (a long path in an error line made
    # the page 465 wide), and each output's JSON line as wide as the page, not a column of 6
    # characters a line (the outputs table stacks its cells).
    driver.set_window_size(390, 844)
    driver.get(url)
    load_everything(driver)
    widths = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    check("390 px wide: no sideways scrolling", widths[0] <= widths[1], str(widths))
    codes = driver.execute_script("return [...document.querySelectorAll('table.outputs td code')].map(c => c.getBoundingClientRect().width)")
    check("390 px wide: JSON lines span the page", codes and min(codes) > 250, str(codes))
    driver.set_window_size(1366, 900)


def reduced_motion_checks(url):
    driver = browser(reduced_motion=True)
    try:
        driver.get(url)
        load_everything(driver)
        card = driver.find_elements(By.CSS_SELECTOR, ".card img.poster[data-anim]")[0]
        ActionChains(driver).move_to_element(card).perform()
        check("reduced motion: hover keeps the poster", card.get_attribute("src").endswith(".png"), card.get_attribute("src"))
        sources = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('img.anim'), function (i) { return i.currentSrc; });")
        check("reduced motion: animations show their posters", sources and all(s.endswith(".png") for s in sources), str(sources))
    finally:
        driver.quit()


def no_javascript_checks(url):
    driver = browser(javascript=False)
    try:
        driver.get(url)
        load_everything(driver)
        posters = [i for i in driver.find_elements(By.CSS_SELECTOR, ".card img.poster") if i.is_displayed()]
        loaded = driver.execute_script("return Array.prototype.every.call(arguments[0], function (i) { return i.complete && i.naturalWidth > 0; });", posters)
        check("no JavaScript: posters show", len(posters) == 3 and loaded)
        check("no JavaScript: tables show", len(driver.find_elements(By.CSS_SELECTOR, "table.outputs tr")) >= 4)
        check("no JavaScript: storyboard sheets show", any(i.is_displayed() for i in driver.find_elements(By.CSS_SELECTOR, ".scrubber img")))
        check("no JavaScript: filters hidden", not driver.find_element(By.ID, "filters").is_displayed())
        check("no JavaScript: the error is shown", "no such file" in driver.find_element(By.ID, "problems").text)
    finally:
        driver.quit()


def readme_yaml_checks():
    import yaml
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text[text.find("## Reports in CI"):]
    section = section[:section.find("\n## ", 5)]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    check("README: two workflow YAML blocks", len(blocks) >= 2, str(len(blocks)))
    parsed = [yaml.safe_load(block) for block in blocks]
    github = next((p for p in parsed if isinstance(p, dict) and "jobs" in p), None)
    check("README: GitHub Actions workflow parses with jobs", github is not None and "report" in github["jobs"])
    gitlab = next((p for p in parsed if isinstance(p, dict) and "report" in p and "artifacts" in p.get("report", {})), None)
    check("README: GitLab CI job parses with artifacts:expose_as", gitlab is not None and "expose_as" in gitlab["report"]["artifacts"])


def main():
    arguments = sys.argv[1:]
    shots = os.path.join(ROOT, ".build", "report-screenshots")
    if "--screenshots" in arguments:
        index = arguments.index("--screenshots")
        shots = arguments[index + 1]
        del arguments[index:index + 2]
    clipkit = os.path.abspath(arguments[0] if arguments else os.path.join(ROOT, ".build", "debug", "clipkit"))
    work = tempfile.mkdtemp(prefix="clipkit-report-browser-")
    try:
        out = make_report(clipkit, work)
        server = serve(out)
        http_url = f"http://127.0.0.1:{server.server_address[1]}/report/index.html"
        file_url = "file://" + os.path.join(out, "report", "index.html")
        driver = browser()
        try:
            check_page(driver, file_url, "file://", out)
            check_page(driver, http_url, "http+CSP", out)
            narrow_checks(driver, http_url)
            lazy_sheet_checks(driver, http_url, out)
            tall_checks(driver, http_url)
            driver.get(http_url.replace("/report/", "/again/"))
            load_everything(driver)
            check("baseline page: compare views added", len(driver.find_elements(By.CSS_SELECTOR, ".compare-controls button")) >= 3)
            synced_video_checks(driver)
            problems = console_problems(driver)
            check("baseline page: no console errors or CSP violations", not problems, str(problems))
            single_file_checks(driver, out)
        finally:
            driver.quit()
        reduced_motion_checks(http_url)
        no_javascript_checks(http_url)
        screenshots(http_url, shots, sections=("clip-1", "clip-3"))
        screenshots(http_url.replace("/report/", "/again/"), shots, name="baseline", sections=("clip-3",))
        server.shutdown()
        readme_yaml_checks()
    except Exception as error:  # a crash is a failure, reported like one
        check("browser test ran to the end", False, repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


main()
