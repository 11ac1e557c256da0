"""Helpers for Tests/Browser/report_browser_test.py: results, a local server sending a strict
Content-Security-Policy, headless Chromium, waiting for media, console problems, screenshots."""
import functools
import http.server
import io
import os
import re
import shutil
import subprocess
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

CSP = "default-src 'self'"
results = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    if condition:
        results["passed"] += 1
        print(f"ok   {name}")
    else:
        results["failed"] += 1
        print(f"FAIL {name} {detail}")


def run(args, cwd, stdout=None):
    return subprocess.run(args, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, check=False)


class CSPHandler(http.server.SimpleHTTPRequestHandler):
    """Sends the strict CSP, and answers byte ranges as artifact hosts do: without them a browser
    cannot seek in a video it has not cached."""

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Accept-Ranges", "bytes")
        super().end_headers()

    def send_head(self):
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        path = self.translate_path(self.path)
        if not match or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        start, end = int(match.group(1)), min(int(match.group(2) or size - 1), size - 1)
        if start > end:
            self.send_error(416)
            return None
        with open(path, "rb") as handle:
            handle.seek(start)
            body = handle.read(end - start + 1)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


def serve(directory):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CSPHandler, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser(javascript=True, reduced_motion=False, width=1280):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},900",
                     "--allow-file-access-from-files", "--autoplay-policy=no-user-gesture-required"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        "window.__csp = []; document.addEventListener('securitypolicyviolation',"
        " function (e) { window.__csp.push(e.violatedDirective + ' ' + e.blockedURI); });")})
    if reduced_motion:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    return driver


def load_everything(driver):
    """Scrolls every lazy image and video into view and waits for them."""
    driver.execute_script("document.querySelectorAll('details').forEach(function (d) { d.open = true; });")
    for element in driver.find_elements(By.CSS_SELECTOR, "img, video"):
        if element.is_displayed():
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    deadline = time.time() + 10
    while time.time() < deadline:
        pending = driver.execute_script(
            "return Array.prototype.filter.call(document.querySelectorAll('img'), function (i) {"
            " return i.offsetParent !== null && !i.complete; }).length +"
            " Array.prototype.filter.call(document.querySelectorAll('video'), function (v) { return v.readyState < 1; }).length;")
        if pending == 0:
            break
        time.sleep(0.1)


def broken_media(driver):
    return driver.execute_script(
        "return Array.prototype.filter.call(document.querySelectorAll('img'), function (i) {"
        " return i.offsetParent !== null && !(i.complete && i.naturalWidth > 0); }).map(function (i) { return i.src; })"
        ".concat(Array.prototype.filter.call(document.querySelectorAll('video'), function (v) { return v.readyState < 1; })"
        ".map(function (v) { return v.src; }));")


def console_problems(driver):
    logs = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    violations = driver.execute_script("return window.__csp || [];")
    return [entry["message"] for entry in logs] + violations


def screenshots(url, directory, name="report", sections=()):
    """The top of the page, then each section (by id, its details open), at two widths: to be looked at."""
    os.makedirs(directory, exist_ok=True)
    for width in (1280, 420):
        driver = browser(width=width)
        try:
            driver.get(url)
            load_everything(driver)
            for section in ("",) + tuple(sections):
                if section:
                    driver.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'start'});", section)
                else:
                    driver.execute_script("window.scrollTo(0, 0);")
                time.sleep(0.3)
                path = os.path.join(directory, f"{name}-{width}{'-' + section if section else ''}.png")
                driver.save_screenshot(path)
                check(f"screenshot {os.path.basename(path)}", os.path.getsize(path) > 1000)
        finally:
            driver.quit()
