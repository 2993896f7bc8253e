"""The results dashboard (`conformance store html`) made from a store of real committed results files:
a lavapipe run and a copy of it a day later with one case regressed and one fixed (its records edited),
an H200 run, and a run whose device, case ids, operator and message are hostile. Its pages are checked
against what reading the files says, its links against the files written, and in headless chromium."""
import gzip
import json
import os
import re
import resource
import signal
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from test_reports_fixtures import HOSTILE_DEVICE, HOSTILE_ID, HOSTILE_MESSAGE

from conformance import statuses
from conformance.cli import exitcodes
from conformance.run.results import encode, read_results
from conformance.store import identity
from reports import dashboard, details, matrix

ROOT = Path(__file__).resolve().parents[1]
LAVAPIPE = ROOT / "docs/gpu/results/dml-wine-lavapipe.jsonl"
H200 = ROOT / "docs/gpu/results/dml-wine-h200.jsonl"
HOSTILE_OP = "EVIL_OP<script>window.__pwned=1</script>/../../../escape"


def write(path: Path, header, records, footer):
    path.write_text("".join(encode(line) + "\n" for line in [header, *records, footer]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """{path: (header, records, footer)}: the two committed files, the edited copy, the hostile run;
    and the copy's regressed and fixed case ids."""
    folder = tmp_path_factory.mktemp("results")
    header, records, footer = read_results(LAVAPIPE)
    later = [dict(record) for record in records]
    regressed = next(r for r in later if r["status"] == statuses.PASS)
    fixed = next(r for r in later if r["status"] == statuses.FAIL)
    regressed["status"], fixed["status"] = statuses.FAIL, statuses.PASS
    copy = write(folder / "lavapipe-next-day.jsonl", {**header, "start": header["start"].replace("2026-11-22", "2026-11-23")},
                 later, footer)
    cpu_header, cpu_records, cpu_footer = read_results(ROOT / "docs/gpu/results/cpu.jsonl")
    hostile = [dict(record) for record in cpu_records[:3]]
    hostile[0].update(id=HOSTILE_ID, status=statuses.FAIL, message=HOSTILE_MESSAGE)
    hostile[1].update(id=hostile[1]["id"] + "<img src=x onerror=window.__pwned=1>", op=HOSTILE_OP, status=statuses.FAIL)
    bad = write(folder / "hostile.jsonl", {**cpu_header, "device": HOSTILE_DEVICE, "driver": "<script>x()</script>"},
                hostile, cpu_footer)
    return {path: read_results(path) for path in (LAVAPIPE, copy, H200, bad)}, regressed["id"], fixed["id"]


def conformance(*args, **options):
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, **options)


@pytest.fixture(scope="module")
def site(files, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dashboard")
    store = folder / "store.sqlite"
    assert conformance("store", "add", "--store", store, *files[0]).returncode == 0
    done = conformance("store", "html", folder / "site", "--store", store)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"wrote .*/site/index.html: 4 runs, \d+ pages, [\d.]+ MiB, in [\d.]+ s\n", done.stderr)
    return folder / "site"


class Page(HTMLParser):
    """Every element of a page: (tag, attributes, its text), and every link and id."""

    def __init__(self, path: Path):
        super().__init__(convert_charrefs=True)
        self.path, self.elements, self.open, self.ids, self.links = path, [], [], set(), []
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in ("a", "span", "code", "b", "i", "wbr"):  # a block's text apart from its neighbour's
            for element in self.open:
                element[2].append(" ")
        element = [tag, attrs, []]
        self.elements.append(element)
        if tag not in ("br", "meta", "wbr", "img", "input", "link"):
            self.open.append(element)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data):
        for element in self.open:
            element[2].append(data)

    def find(self, tag, **attrs) -> list:
        """(attributes, text) of the elements of tag whose attributes include attrs (class: one of its classes)."""
        found = []
        for name, have, text in self.elements:
            if name == tag and all(value in have.get(key, "").split() if key == "class" else have.get(key) == value
                                   for key, value in attrs.items()):
                found.append((have, " ".join("".join(text).split())))
        return found


def expected_cells(files) -> dict:
    """{(device, backend, op): matrix.Cell of each data type and level's cases in the latest run holding them}."""
    latest = {}
    for header, records, _ in sorted(files.values(), key=lambda f: f[0]["start"]):
        parts = {}
        for record in records:
            parts.setdefault((header["device"], header["backend"], record["op"], record["dtype"],
                              record["feature_level"]), []).append(record)
        latest.update(parts)
    cells = {}
    for (device, backend, op, *_), records in latest.items():
        cells.setdefault((device, backend, op), matrix.Cell()).records.extend(records)
    return cells


def index_cells(page) -> dict:
    """{(device, backend, op): (the cell's attributes, its text)} of the index, read in document order."""
    cells, row = {}, None
    for tag, attrs, text in page.elements:
        if tag == "tr" and "data-row" in attrs:
            row = attrs
        elif tag == "td" and "data-op" in attrs and row is not None:
            cells[(row["data-device"], row["data-backend"], attrs["data-op"])] = (attrs, " ".join("".join(text).split()))
    return cells


def test_each_index_cell_is_the_latest_verdict_the_files_say(site, files):
    expected = expected_cells(files[0])
    shown = {key: cell for key, cell in index_cells(Page(site / "index.html")).items() if "cell" in cell[0]["class"]}
    assert set(shown) == set(expected) and len({key[:2] for key in shown}) == 3
    for key, cell in expected.items():
        attributes, text = shown[key]
        worst = max((r["max_ulp"] for r in cell.records if r.get("max_ulp") is not None), default=None)
        assert attributes["data-status"] == cell.status and matrix.css_class(cell.status) in attributes["class"], key
        assert text.startswith(f"{cell.shown}/{cell.total} {statuses.short(cell.status)}"), (key, text)
        assert (f"{dashboard.ulp(worst)} ULP" in text) == (worst is not None), (key, text)
    # the regressed and the fixed case count in their cells as the copy (a day later) has them
    paths, regressed, fixed = files
    copy = next(path for path in paths if path.name == "lavapipe-next-day.jsonl")
    header, records, _ = paths[copy]
    for case, status in ((regressed, statuses.FAIL), (fixed, statuses.PASS)):
        record = next(r for r in records if r["id"] == case)
        assert record["status"] == status and record in expected[(header["device"], "dml-wine", record["op"])].records


def row_marks(page, row_id) -> list:
    """The statuses of a case's history row, a run each (oldest first), the runs that lack it left out."""
    marks, inside = [], False
    for tag, attrs, _ in page.elements:
        if tag == "tr":
            inside = attrs.get("id") == row_id
        elif inside and tag == "td" and "h" in attrs.get("class", "").split():
            marks.append(attrs["data-status"])
    return marks


def test_the_timeline_shows_the_regression_and_the_fix_between_the_two_runs(site, files):
    paths, regressed, fixed = files
    header, records, _ = paths[LAVAPIPE]
    timeline = next(page for page in map(Page, (site / "devices").glob("*.html"))
                    if page.find("h1")[0][1] == f"Timeline: dml-wine on {header['device']}")
    steps = timeline.find("section", **{"class": "step"})
    starts = sorted(identity.utc(f[0]["start"]) for f in paths.values() if f[0]["device"] == header["device"])
    assert [text.split(" · ")[0] for _, text in steps] == starts and len(starts) == 2
    assert "nothing to compare with" in steps[0][1] and "against earlier runs: 0 changed, 0 the same, 763 new" in steps[0][1]
    assert "against earlier runs: 2 changed, 761 the same, 0 new" in steps[1][1]
    lists = {attrs["data-kind"]: text for attrs, text in timeline.find("ul")}
    for kind, case, before, after in (("regression", regressed, "pass", "fail"), ("fix", fixed, "fail", "pass")):
        ulp = next(r for r in records if r["id"] == case).get("max_ulp")
        note = f" ({dashboard.ulp(ulp)} ULP)" if ulp is not None else ""
        assert lists.pop(kind) == f"{case}: {before}{note} → {after}{note}"
        link = next(href for href in timeline.links if href.endswith("#" + details.anchor(case)))
        target = Page((timeline.path.parent / urlsplit(link).path).resolve())
        attrs, row = target.find("tr", id=details.anchor(case))[0]
        assert row.startswith(f"{case} {after}"), row  # its history: the verdict of each run, oldest first
        assert row_marks(target, details.anchor(case)) == [before, after]
    assert not lists  # no other change


def test_every_link_resolves_to_a_file_of_the_site_and_an_id_in_it(site):
    pages = {path: Page(path) for path in site.rglob("*.html")}
    assert len(pages) >= 10
    checked = 0
    for path, page in pages.items():
        for href in page.links:
            parts = urlsplit(href)
            assert not parts.scheme and not parts.netloc, f"{path}: {href} leaves the site"
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            assert target.is_relative_to(site.resolve()) and target.is_file(), f"{path}: {href}"
            if parts.fragment:
                assert parts.fragment in pages[target].ids, f"{path}: {href}: no such id"
            checked += 1
    assert checked > 100


def test_hostile_strings_are_text_and_file_names_stay_inside(site, files):
    hostile = [page for page in site.rglob("*.html") if "GPU" in page.read_text(encoding="utf-8")]
    assert hostile
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert "<script>window.__pwned" not in text and "<img src=x" not in text and "<b>GPU</b>" not in text, path
        assert "<script>x()" not in text, path
    index = Page(site / "index.html")
    assert any(attrs.get("data-device") == HOSTILE_DEVICE for attrs, _ in index.find("tr"))
    assert HOSTILE_OP in [attrs["data-op"] for attrs, _ in index.find("th", **{"class": "op"})]
    cell_pages = [Page(path) for path in (site / "cells").rglob("*.html")]
    evil = [page for page in cell_pages if page.find("h1")[0][1].startswith(HOSTILE_OP)]
    assert len(evil) == 1 and evil[0].path.parent.parent == site / "cells"
    messages = [text for page in cell_pages for _, text in page.find("pre", **{"class": "message"})]
    assert " ".join(HOSTILE_MESSAGE.split()).replace("\x07", "").replace("\x1b", "")[:60] in " ".join(messages)
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", part) for path in site.rglob("*") for part in path.relative_to(site).parts)


def test_out_is_written_whole_or_not_at_all(site, files, tmp_path):
    store = site.parent / "store.sqlite"
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    done = conformance("store", "html", other, "--store", store)
    assert done.returncode == exitcodes.BAD_INPUT and (other / "notes.txt").read_text() == "mine"
    assert done.stderr == f"error: {other}: a folder holding other files, not a dashboard this command wrote: " \
                          "give a new or empty folder\n"
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    done = conformance("store", "html", blocked / "site", "--store", store)
    assert done.returncode == exitcodes.BAD_INPUT and done.stderr.count("\n") == 1 and str(blocked) in done.stderr
    # a site written again replaces the old whole; a write that fails midway (a file size limit) leaves the old
    out = tmp_path / "site"
    assert conformance("store", "html", out, "--store", store).returncode == 0
    before = sorted(p.relative_to(out) for p in out.rglob("*"))

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
    done = conformance("store", "html", out, "--store", store, "--device", "llvmpipe", preexec_fn=small_files)
    assert done.returncode == exitcodes.OUTPUT_FAILED, done.stderr
    assert re.fullmatch(rf"error: {out}: the dashboard could not be written: File too large\n", done.stderr)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "other", "site"]  # no folder left beside
    done = conformance("store", "html", out, "--store", store, "--device", "H200")
    assert done.returncode == 0 and "1 runs" in done.stderr
    assert len(Page(out / "index.html").find("tr", **{"data-device": "NVIDIA H200"})) == 1
    assert not Page(out / "index.html").find("tr", **{"data-backend": "cpu"})
    done = conformance("store", "html", out, "--store", store, "--device", "no-such-gpu")
    assert done.returncode == exitcodes.BAD_INPUT and done.stderr.startswith("error: --device no-such-gpu: no stored")


def test_a_postgresql_store_gives_the_same_site(site, files, postgres_server, tmp_path):
    url = postgres_server()
    assert conformance("store", "add", "--store", url, *files[0]).returncode == 0
    assert conformance("store", "html", tmp_path / "site", "--store", url).returncode == 0
    stamp = re.compile(r"on \d{4}-\d\d-\d\dT[\d:+]+ from")
    for path in site.rglob("*.html"):
        mine = tmp_path / "site" / path.relative_to(site)
        assert stamp.sub("", mine.read_text()) == stamp.sub("", path.read_text()), path


from test_store import postgres_server  # noqa: E402,F401 (the throwaway PostgreSQL cluster, once a session)


def chromium(profile):
    """Headless chromium (scripts/report_screenshot.py's) that keeps the console's messages."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("report_screenshot", ROOT / "scripts" / "report_screenshot.py")
    shots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shots)
    browser, driver = shots.find_chromium()
    if not browser or not driver:
        from needs import missing
        missing("chromium or chromium-driver is not installed (scripts/ci.d/20-chromium.sh)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in shots.CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument("--window-size=1400,1000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def test_in_chromium_the_pages_render_without_errors_and_the_drill_down_links_work(site, files, tmp_path):
    from selenium.webdriver.common.by import By
    _, regressed, _ = files
    browser = chromium(tmp_path / "profile")
    problems = []

    def visit():
        problems.extend(entry for entry in browser.get_log("browser"))
        assert browser.execute_script("return window.__pwned === undefined")

    try:
        browser.get((site / "index.html").as_uri())
        assert browser.title == "DirectML conformance dashboard"
        visit()
        board = browser.find_element(By.ID, "board")
        assert board.is_displayed()
        cell = browser.find_element(By.CSS_SELECTOR, "tr[data-backend='dml-wine'] td.cell.st-fail a")
        op = cell.find_element(By.XPATH, "..").get_attribute("data-op")
        cell.click()
        assert browser.find_element(By.TAG_NAME, "h1").text.startswith(f"{op} on dml-wine on ")
        worst = browser.find_elements(By.CSS_SELECTOR, "details.case[open] table.worst")
        assert worst and worst[0].is_displayed()  # the failing cases' worst elements, as the report draws them
        visit()
        browser.back()
        browser.find_element(By.CSS_SELECTOR, "tr[data-backend='dml-wine'][data-device*='llvmpipe'] th.row a").click()
        assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Timeline: dml-wine on llvmpipe")
        visit()
        browser.find_element(By.CSS_SELECTOR, "ul[data-kind='regression'] a").click()
        target = browser.execute_script("var t = document.querySelector(':target'); return t && t.innerText;")
        assert target and target.startswith(regressed)
        visit()
        browser.get((site / "index.html").as_uri())
        browser.find_element(By.CSS_SELECTOR, f"td.cell[data-op=\"{HOSTILE_OP.replace(chr(34), '')}\"] a").click()
        assert browser.find_element(By.TAG_NAME, "h1").text.startswith(HOSTILE_OP)
        assert "<img src=x onerror=window.__pwned=1>" in browser.find_element(By.TAG_NAME, "body").text
        visit()
    finally:
        browser.quit()
    assert not problems, problems
