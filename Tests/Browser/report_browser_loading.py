"""Checks of how clipkit report's page loads its media, for Tests/Browser/report_browser_test.py:
storyboard sheets fetched only near the viewport, tall pictures capped, --single-file's one copy
of each file shared by every place that shows it."""
import base64
import json
import os
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from report_browser_support import broken_media, check, console_problems, load_everything


def lazy_sheet_checks(driver, url, out):
    """A storyboard sheet is fetched only when its scrubber comes near the viewport (every sheet
    was set as a background, so fetched, at page load)."""
    sheets = [sheet["file"] for sheet in json.load(open(os.path.join(out, "boards", "counter.storyboard", "storyboard.json")))["sheets"]]
    fetched = "return performance.getEntriesByType('resource').map(e => e.name).filter(n => arguments[0].some(s => n.endsWith('/' + s)));"
    driver.set_window_size(1280, 400)
    driver.get(url)
    time.sleep(0.8)
    background = driver.execute_script("return getComputedStyle(document.querySelector('.scrubber.live .tile')).backgroundImage;")
    early = driver.execute_script(fetched, sheets)
    check("sheets: none fetched while their scrubber is far from the viewport", background == "none" and not early, f"{background} {early}")
    driver.execute_script("document.querySelector('.scrubber.live').scrollIntoView({block: 'center'});")
    deadline = time.time() + 5
    while time.time() < deadline and not driver.execute_script(fetched, sheets):
        time.sleep(0.1)
    late = driver.execute_script(fetched, sheets)
    background = driver.execute_script("return getComputedStyle(document.querySelector('.scrubber.live .tile')).backgroundImage;")
    check("sheets: the first fetched once the scrubber is near", late and background.endswith(sheets[0] + '")'), f"{background} {late}")
    driver.set_window_size(1366, 900)


def tall_checks(driver, url):
    """A 32x6560 clip's pictures are capped to 70% of the viewport's height, their shape kept."""
    driver.get(url)
    load_everything(driver)
    sizes = driver.execute_script("var h = innerHeight; return [...document.querySelectorAll('section.clip .media img, section.clip .media video')]"
                                  ".map(i => [i.getBoundingClientRect().width, i.getBoundingClientRect().height, i.naturalWidth || i.videoWidth, i.naturalHeight || i.videoHeight, h]);")
    too_tall = [size for size in sizes if size[1] > 0.7 * size[4] + 1]
    check("tall pictures capped in height", sizes and not too_tall, str(too_tall))
    shapes = [size for size in sizes if size[3] > 1000]
    check("tall pictures keep their shape", shapes and all(abs(w / h - nw / nh) < 0.01 for w, h, nw, nh, _ in shapes), str(shapes))


def single_file_checks(driver, out):
    """--single-file holds each file's bytes once; the page's script gives them to every other
    place (card animation, section poster, table link): every image still shows, no script errors."""
    page = os.path.join(out, "single.html")
    text = open(page, encoding="utf-8").read()
    for name in os.listdir(os.path.join(out, "gifs")):
        data = base64.b64encode(open(os.path.join(out, "gifs", name), "rb").read()).decode()
        check(f"single file: {name}'s bytes once", text.count(data) == 1, str(text.count(data)))
    driver.get("file://" + page)
    load_everything(driver)
    check("single file: every image loads", not broken_media(driver), str(broken_media(driver))[:300])
    shared = driver.execute_script("return [...document.querySelectorAll('[data-inline-src],[data-inline-srcset],[data-inline-data-anim],[data-inline-poster]')]"
                                   ".filter(e => !(e.getAttribute('src') || e.getAttribute('srcset') || e.getAttribute('data-anim') || e.getAttribute('poster') || '').startsWith('data:')).length")
    check("single file: every shared place got its file", shared == 0, str(shared))
    driver.execute_script("document.querySelector('.scrubber.live').scrollIntoView({block: 'center'});")
    time.sleep(0.3)
    sheet = driver.execute_script("return getComputedStyle(document.querySelector('.scrubber.live .tile')).backgroundImage.slice(0, 27);")
    check("single file: storyboard sheets inlined", sheet.startswith('url("data:image/'), sheet)
    driver.execute_script("window.scrollTo(0, 0);")
    card = driver.find_elements(By.CSS_SELECTOR, ".card img.poster[data-anim]")[0]
    ActionChains(driver).move_to_element(card).perform()
    check("single file: hover plays the animation", card.get_attribute("src").startswith("data:image/gif"), card.get_attribute("src")[:30])
    problems = console_problems(driver)
    check("single file: no console errors", not problems, str(problems))
    link = driver.find_element(By.CSS_SELECTOR, "table.outputs a[data-inline-href]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", link)
    link.click()
    time.sleep(0.5)
    check("single file: a table link opens its file", driver.current_url.startswith("blob:"), driver.current_url[:60])
