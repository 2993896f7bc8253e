"""The HTML report in a real headless browser (Debian's chromium and chromium-driver, via selenium):
what a person sees. Installed in CI by scripts/ci.d/20-chromium.sh; without chromium this test
fails when CI is set and is skipped otherwise."""
import importlib.util
import os

import pytest
from needs import missing
from test_reports_fixtures import HOSTILE_ID, conformance, write_results

from conformance import statuses
from conformance.caseset.caseload import REPO_ROOT
from conformance.run.results import read_results
from reports import details, matrix

SCRIPT = REPO_ROOT / "scripts" / "report_screenshot.py"


def _screenshot_module():
    spec = importlib.util.spec_from_file_location("report_screenshot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _missing(reason):
    missing(f"{reason}: CI must run the browser test; install with: apt-get install chromium chromium-driver "
            "(scripts/ci.d/20-chromium.sh)")


@pytest.fixture(scope="module")
def shots():
    module = _screenshot_module()
    browser, driver = module.find_chromium()
    if not browser or not driver:
        _missing("chromium or chromium-driver is not installed")
    try:
        import selenium  # noqa: F401
    except ImportError:
        _missing("selenium is not installed (pip install -e '.[test]')")
    return module


@pytest.fixture(scope="module")
def browser(shots, tmp_path_factory):
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager reach the network
    driver = shots.start_chromium(tmp_path_factory.mktemp("chromium-profile"), 1600, 1200)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def cpu_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    done = conformance("run", "--backend", "cpu", "--quiet", "--results", folder / "cpu.jsonl",
                       "--html", folder / "cpu.html")
    assert done.returncode == 1, done.stderr
    return folder


def visible(elements):
    return [e for e in elements if e.is_displayed()]


def shown_attributes(driver, selector: str, attribute: str) -> list:
    """attribute of every element of selector that a person sees, in one script call (a WebDriver
    round trip per element costs tens of milliseconds, and the report has thousands of rows)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]))"
        ".filter(e => e.checkVisibility()).map(e => e.getAttribute(arguments[1]))", selector, attribute)


def read_matrix(driver, table_id: str) -> list:
    """[(operator, conforms-up-to text, [cell text])] of a matrix as rendered (innerText, what a person
    reads), in one script call."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr')).map(r => "
        "[r.querySelector('td.op').innerText, r.querySelector('td.level').innerText, "
        "Array.from(r.querySelectorAll('td.cell')).map(c => c.innerText)])", table_id)
    return [(op.replace("\n", ""), level.strip(), cells) for op, level, cells in rows]


def no_alert(driver):
    from selenium.common.exceptions import NoAlertPresentException
    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return True
    raise AssertionError(f"a script from the report's data ran: alert({text!r})")


def test_a_person_sees_the_matrix_the_drill_down_and_the_histogram(browser, cpu_report, tmp_path):
    from selenium.webdriver.common.by import By
    _, records, _ = read_results(cpu_report / "cpu.jsonl")
    browser.get((cpu_report / "cpu.html").as_uri())
    assert browser.title.startswith("DirectML conformance: cpu on ")
    assert browser.find_element(By.ID, "verdict").text.startswith("not conformant:")
    built = matrix.build(records)
    dtypes = [d for d, _ in built.dtypes]
    # at a glance: one row per operator, the level it conforms up to, a cell per data type (every level)
    glance = browser.find_element(By.ID, "glance-table")
    assert glance.is_displayed() and glance.size["width"] <= 1600
    rows = read_matrix(browser, "glance-table")
    assert [op for op, _, _ in rows] == [row.op for row in built.rows]
    for (_, level, texts), row in zip(rows, built.rows):
        assert level.split("\n")[0] == (f"FL {row.conforms_up_to}" if row.conforms_up_to else "none")
        assert len(texts) == len(dtypes), (row.op, texts)
        for text, dtype in zip(texts, dtypes):
            cell = row.by_dtype.get(dtype)
            expected = ["–"] if cell is None else [statuses.short(cell.status), f"{cell.shown}/{cell.total}"]
            assert text.strip().split("\n")[:2] == expected, (row.op, dtype, text)
    # by feature level: closed until asked for, then a cell per data type and level
    by_level = browser.find_element(By.ID, "matrix-table")
    assert not by_level.is_displayed()
    browser.find_element(By.CSS_SELECTOR, "details#by-level > summary").click()
    assert by_level.is_displayed()
    rows = read_matrix(browser, "matrix-table")
    assert [op for op, _, _ in rows] == [row.op for row in built.rows]
    for (_, _, texts), row in zip(rows, built.rows):
        assert len(texts) == len(built.columns), (row.op, texts)
        for text, column in zip(texts, built.columns):
            cell = row.cells.get(column)
            if cell is None:
                assert text.strip() == "–", (row.op, column, text)
            else:
                assert text.strip().split("\n")[:2] == [statuses.short(cell.status), f"{cell.shown}/{cell.total}"], \
                    (row.op, column, text)
    # a failing case's drill-down opens on a click and shows the worst elements and the histogram
    case = browser.find_elements(By.CSS_SELECTOR, "details.case")[0]
    worst = case.find_element(By.CSS_SELECTOR, "table.worst")
    assert not worst.is_displayed()
    case.find_element(By.TAG_NAME, "summary").click()
    assert worst.is_displayed() and case.get_attribute("open") is not None
    first = [r for r in records if r["status"] in statuses.FAILING][0]
    assert case.find_element(By.CSS_SELECTOR, "summary code").text == first["id"]
    # both verdicts' worst elements, each with its acceptance interval [lo, hi]
    for selector, expected in (("table.worst-d3d", first["d3d"]["worst"]), ("table.worst-ulp", first["worst"])):
        shown = case.find_elements(By.CSS_SELECTOR, selector)
        assert len(shown) == bool(expected)
        if expected:
            rows = shown[0].find_elements(By.CSS_SELECTOR, "tbody tr")
            assert len(rows) == len(expected) and all("[" in row.text and "]" in row.text for row in rows)
    svg = case.find_element(By.CSS_SELECTOR, "svg.histogram")
    assert svg.is_displayed() and svg.size["width"] > 200 and svg.size["height"] > 100
    bars = visible(svg.find_elements(By.TAG_NAME, "rect"))
    counted = sum(n for _, _, n in first["ulp_histogram"]["bins"]) + first["ulp_histogram"]["nan"] + \
        first["ulp_histogram"]["flushed"]
    assert counted == first["elements"] and len(bars) == sum(
        1 for _ in first["ulp_histogram"]["bins"]) + bool(first["ulp_histogram"]["nan"]) + \
        bool(first["ulp_histogram"]["flushed"])
    assert all(bar.size["height"] >= 2 for bar in bars)
    assert {bar.get_attribute("class") for bar in bars} >= {"ok", "over"}
    rerun = case.find_element(By.CSS_SELECTOR, "pre.rerun").text
    assert rerun.startswith("conformance run --backend cpu --seed 0 -k '") and first["id"] in rerun
    assert no_alert(browser)
    browser.save_screenshot(str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_filters_work_with_javascript(browser, cpu_report):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    _, records, _ = read_results(cpu_report / "cpu.jsonl")
    browser.get((cpu_report / "cpu.html").as_uri())
    form = browser.find_element(By.ID, "filters")
    assert form.is_displayed()  # the page's own script ran, under its Content-Security-Policy
    shown = browser.find_element(By.ID, "shown")
    assert shown.text == f"showing {len(records)} of {len(records)} cases"
    Select(form.find_element(By.NAME, "op")).select_by_visible_text("ACTIVATION_CELU")
    celu = [r for r in records if r["op"] == "ACTIVATION_CELU"]
    assert shown.text == f"showing {len(celu)} of {len(records)} cases"
    assert shown_attributes(browser, "#glance-table tbody tr", "data-op-row") == ["ACTIVATION_CELU"]
    form.find_element(By.CSS_SELECTOR, "input[name=status][value=pass]").click()
    left = [r for r in celu if r["status"] != "pass"]
    assert shown.text == f"showing {len(left)} of {len(records)} cases"
    assert sorted(shown_attributes(browser, "table.cases tbody tr", "data-case")) == sorted(r["id"] for r in left)
    Select(form.find_element(By.NAME, "dtype")).select_by_visible_text("float16")
    assert set(shown_attributes(browser, "#glance-table th[data-col-dtype]", "data-col-dtype")) == {"float16"}
    form.find_element(By.CSS_SELECTOR, "button[data-reset]").click()
    assert shown.text == f"showing {len(records)} of {len(records)} cases"
    # by status: only fail ticked, the matrix keeps the operators with a failing case
    for box in form.find_elements(By.CSS_SELECTOR, "input[name=status]"):
        if box.get_attribute("value") != "fail":
            box.click()
    failing_ops = sorted({r["op"] for r in records if r["status"] == "fail"})
    assert shown_attributes(browser, "#glance-table tbody tr", "data-op-row") == failing_ops
    form.find_element(By.CSS_SELECTOR, "button[data-reset]").click()
    assert len(shown_attributes(browser, "#glance-table tbody tr", "data-op-row")) == len({r["op"] for r in records})
    # a failing matrix cell links to its first failing case, which opens
    link = browser.find_element(By.CSS_SELECTOR, "#glance-table td.st-fail a")
    target = link.get_attribute("href").split("#", 1)[1]
    link.click()
    opened = browser.find_element(By.ID, target)
    assert opened.get_attribute("open") is not None and opened.find_element(By.CSS_SELECTOR, "table.worst").is_displayed()


def test_no_script_from_case_data_runs(browser, tmp_path):
    from selenium.webdriver.common.by import By

    from reports import html
    path = write_results(tmp_path / "hostile.jsonl")
    (tmp_path / "hostile.html").write_text(html.render_report(*read_results(path)))
    browser.get((tmp_path / "hostile.html").as_uri())
    assert no_alert(browser)
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.execute_script("return document.images.length") == 0
    case = browser.find_element(By.ID, details.anchor(HOSTILE_ID))
    assert case.find_element(By.CSS_SELECTOR, "summary code").text == HOSTILE_ID  # shown as text
    case.find_element(By.TAG_NAME, "summary").click()
    message = case.find_element(By.CSS_SELECTOR, "pre.message").text
    assert '<img src=x onerror="window.__pwned=1">' in message and "<script>window.__pwned=1</script>" in message
    assert "<b>GPU</b>" in browser.find_element(By.TAG_NAME, "h1").text
    assert no_alert(browser) and browser.execute_script("return typeof window.__pwned") == "undefined"


def test_the_report_reads_without_javascript(shots, cpu_report, tmp_path):
    from selenium.webdriver.common.by import By
    os.environ.setdefault("SE_OFFLINE", "true")
    driver = shots.start_chromium(tmp_path / "profile", 1400, 1000, javascript=False)
    try:
        driver.get((cpu_report / "cpu.html").as_uri())
        assert not driver.find_element(By.ID, "filters").is_displayed()  # controls that could not work
        assert driver.find_element(By.ID, "glance-table").is_displayed()
        driver.find_element(By.CSS_SELECTOR, "details#by-level > summary").click()
        assert driver.find_element(By.ID, "matrix-table").is_displayed()
        case = driver.find_elements(By.CSS_SELECTOR, "details.case")[0]
        case.find_element(By.TAG_NAME, "summary").click()  # <details> opens without a script
        assert case.find_element(By.CSS_SELECTOR, "svg.histogram").is_displayed()
        assert case.find_element(By.CSS_SELECTOR, "table.worst").is_displayed()
    finally:
        driver.quit()


@pytest.mark.parametrize("ci, outcome", [("", "skipped"), ("true", "error")])
def test_without_chromium_the_browser_test_fails_under_ci_and_is_skipped_elsewhere(ci, outcome, tmp_path):
    import subprocess
    import sys
    env = {**os.environ, "CHROMIUM_BINARY": str(tmp_path / "no-chromium"), "CI": ci}
    done = subprocess.run([sys.executable, "-m", "pytest", __file__, "-p", "no:cacheprovider", "-rsf",
                           "-k", "no_script_from_case_data"], capture_output=True, text=True, env=env,
                          cwd=REPO_ROOT)
    assert f"1 {outcome}" in done.stdout, done.stdout[-2000:]  # an error at setup: the run fails
    assert done.returncode == (0 if outcome == "skipped" else 1)
    assert "chromium or chromium-driver is not installed" in done.stdout
    if outcome == "error":
        assert "CI must run the browser test" in done.stdout


def test_the_operator_column_stays_in_view_at_a_laptops_width(shots, cpu_report, tmp_path):
    """At 1,400 px the at-a-glance matrix fits the window, and the by-level matrix (far wider)
    scrolls sideways under an operator column that stays put."""
    from selenium.webdriver.common.by import By
    os.environ.setdefault("SE_OFFLINE", "true")
    driver = shots.start_chromium(tmp_path / "profile", 1400, 1000)
    try:
        driver.get((cpu_report / "cpu.html").as_uri())
        page = driver.execute_script("return document.documentElement.clientWidth")
        glance = driver.find_element(By.ID, "glance-table")
        assert glance.rect["x"] + glance.rect["width"] <= page, (glance.rect, page)
        driver.find_element(By.CSS_SELECTOR, "details#by-level > summary").click()
        table = driver.find_element(By.ID, "matrix-table")
        box = driver.execute_script("return arguments[0].parentElement.getBoundingClientRect().toJSON()", table)
        assert table.rect["width"] > 2 * box["width"]  # far wider than the window
        op, cell = (table.find_element(By.CSS_SELECTOR, selector) for selector in ("tbody td.op", "tbody td.cell"))
        before = (op.rect["x"], cell.rect["x"])
        driver.execute_script("arguments[0].parentElement.scrollLeft = 1500", table)
        assert cell.rect["x"] < before[1] - 1000  # the cells moved
        assert abs(op.rect["x"] - before[0]) < 1 and op.is_displayed()  # the operator did not
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", op)
        assert driver.execute_script("var r = arguments[0].getBoundingClientRect(); return "
                                     "document.elementFromPoint(r.left + 5, r.top + 5) === arguments[0] || "
                                     "arguments[0].contains(document.elementFromPoint(r.left + 5, r.top + 5))", op)  # on top
    finally:
        driver.quit()
