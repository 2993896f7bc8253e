"""The dashboard's pictures in docs/dashboard/: every committed results file under docs/ into a fresh
SQLite store, the site written from it (`conformance store html`), three pages (and the drill-down's worst elements) screenshot in headless
chromium at 1400 px wide (scripts/report_screenshot.py's browser). Prints the times and the site's size.

    .venv/bin/python scripts/dashboard_screenshots.py [--out docs/dashboard] [--keep FOLDER]

--keep: leave the store and the site in FOLDER (default: a temporary folder, removed).
"""
import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMELINE = "dml-wine-nvidia-h100-80gb-hbm3"  # the row whose timeline is shown: five DirectML releases that differ
# the timeline scrolled to its first run with both regressions and fixes; the drill-down: its first regression's page
FIRST_STEP = ("return Array.from(document.querySelectorAll('section.step')).find(s => "
              "s.querySelector('ul[data-kind=regression]') && s.querySelector('ul[data-kind=fix]'))")


def conformance(*args):
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "conformance", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True)
    if done.returncode:
        sys.exit(f"conformance {' '.join(map(str, args[:3]))} ... failed ({done.returncode}): {done.stderr[-2000:]}")
    return done, time.perf_counter() - started


def shoot(folder: Path, out: Path):
    spec = importlib.util.spec_from_file_location("report_screenshot", ROOT / "scripts" / "report_screenshot.py")
    shots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shots)
    timeline = next((folder / "devices").glob(f"{TIMELINE}-*.html"))
    with tempfile.TemporaryDirectory(prefix="dashboard-shot-") as profile:
        browser = shots.start_chromium(profile, 1400, 1100)
        try:
            out.mkdir(parents=True, exist_ok=True)
            browser.get((folder / "index.html").as_uri())
            save(browser, out / "dashboard-index-1400.png", "index.html")
            browser.set_window_size(1400, 1400)
            browser.get(timeline.as_uri())
            step = browser.execute_script(FIRST_STEP)
            browser.execute_script("arguments[0].scrollIntoView();", step)
            save(browser, out / "dashboard-timeline-1400.png", timeline.relative_to(folder))
            link = browser.execute_script("return arguments[0].querySelector('ul[data-kind=regression] a').href", step)
            browser.get(link.split("#")[0])
            save(browser, out / "dashboard-drill-down-1400.png", link.split(str(folder) + "/", 1)[-1].split("#")[0])
            browser.get((folder / "index.html").as_uri())  # the row's first failing cell, at its worst elements
            link = browser.execute_script(f"return document.querySelector('tr[data-row^=\"{TIMELINE}-\"] "
                                          "td.cell.st-fail a').href")
            browser.get(link + "#failing")
            save(browser, out / "dashboard-worst-elements-1400.png", link.split(str(folder) + "/", 1)[-1])
        finally:
            browser.quit()


def save(browser, png: Path, page):
    browser.save_screenshot(str(png))
    print(f"wrote {png} ({page})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "dashboard")
    parser.add_argument("--keep", type=Path, metavar="FOLDER")
    args = parser.parse_args()
    files = sorted(p for p in (ROOT / "docs").rglob("*.jsonl*") if p.name.endswith((".jsonl", ".jsonl.gz")))
    with tempfile.TemporaryDirectory(prefix="dashboard-") as scratch:
        folder = args.keep or Path(scratch)
        store, site = folder / "store.sqlite", folder / "site"
        store.unlink(missing_ok=True)
        _, seconds = conformance("store", "add", "--store", store, *files)
        print(f"conformance store add: {len(files)} files in {seconds:.1f} s")
        done, seconds = conformance("store", "html", site, "--store", store)
        size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        pages = sum(1 for _ in site.rglob("*.html"))
        print(f"conformance store html: {seconds:.1f} s, {pages} pages, {size / 2**20:.1f} MiB "
              f"({done.stderr.strip()})")
        shoot(site, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
