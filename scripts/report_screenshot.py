"""Screenshot an HTML report in headless chromium (Debian's chromium and chromium-driver, selenium).

    python scripts/report_screenshot.py REPORT.html PNG [--open ID] [--at ID] [--scroll-right ID:PX]
        [--open-first-failure] [--width W] [--height H]

The pictures in docs/ are made this way from the default cases on the cpu backend, at a laptop's width:
    conformance run --backend cpu --quiet --results /tmp/cpu.jsonl --html /tmp/cpu.html
    python scripts/report_screenshot.py /tmp/cpu.html docs/report-screenshot.png --height 1400
    python scripts/report_screenshot.py /tmp/cpu.html docs/report-matrix-1400.png --at matrix --height 1400
    python scripts/report_screenshot.py /tmp/cpu.html docs/report-by-level-1400.png --open by-level \
        --at by-level --scroll-right matrix-table:2400 --height 1000
    python scripts/report_screenshot.py /tmp/cpu.html docs/report-drill-down-1400.png --open-first-failure \
        --at failing --height 1400
"""
import argparse
import os
import shutil
import tempfile
from pathlib import Path

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def find_chromium():
    """(browser, driver) paths, or None where missing. CHROMIUM_BINARY and CHROMEDRIVER override."""
    browser = os.environ.get("CHROMIUM_BINARY") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or next(
        (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if Path(p).exists()), None)
    return (browser if browser and Path(browser).exists() else None,
            driver if driver and Path(driver).exists() else None)


def start_chromium(profile_dir, width=1400, height=1000, javascript=True):
    """A selenium driver for a fresh headless chromium; the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    browser, driver = find_chromium()
    if not browser or not driver:
        raise RuntimeError("chromium and chromium-driver are not installed (scripts/ci.d/20-chromium.sh)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    options.add_argument(f"--window-size={width},{height}")
    if not javascript:
        options.add_argument("--blink-settings=scriptEnabled=false")
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("png")
    parser.add_argument("--open-first-failure", action="store_true",
                        help="open the first failing case's drill-down")
    parser.add_argument("--open", action="append", default=[], metavar="ID", help="open this <details>")
    parser.add_argument("--at", metavar="ID", help="scroll the page to this element")
    parser.add_argument("--scroll-right", metavar="ID:PX",
                        help="scroll the box around this element sideways by PX pixels")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=2200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="report-shot-") as profile:
        browser = start_chromium(profile, args.width, args.height)
        try:
            browser.get(Path(args.report).resolve().as_uri())
            if args.open_first_failure:
                browser.execute_script("var d = document.querySelector('details.case'); if (d) { d.open = true; }")
            for name in args.open:
                browser.execute_script("document.getElementById(arguments[0]).open = true;", name)
            if args.at:
                browser.execute_script("document.getElementById(arguments[0]).scrollIntoView(); "
                                       "window.scrollBy(0, -document.getElementById('filters').offsetHeight - 8);",
                                       args.at)  # below the filters, which stay at the top
            if args.scroll_right:
                name, pixels = args.scroll_right.rsplit(":", 1)
                browser.execute_script("document.getElementById(arguments[0]).parentElement.scrollLeft = arguments[1];",
                                       name, int(pixels))
            Path(args.png).parent.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(args.png))
        finally:
            browser.quit()
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
