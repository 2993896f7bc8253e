"""Reports from a results file whose every cell is known, and from a real cpu run: the matrix,
escaping of hostile strings, markdown tables, JUnit XML read back, the rerun command."""
import base64
import hashlib
import re
import shlex
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser

import pytest
from test_reports_fixtures import (FOOTER, HEADER, HOSTILE_DEVICE, HOSTILE_ID, conformance, known_records,
                                   write_results)

from conformance import specs, statuses
from conformance.caseset.caseload import REPO_ROOT
from conformance.caseset.selection import compile_expression
from conformance.run.results import read_results
from reports import details, html, junit, markdown, matrix

CLIP, CELU = "ELEMENT_WISE_CLIP", "ACTIVATION_CELU"


class Tables(HTMLParser):
    """Each <table id=...>: rows of (text, class, attributes) cells; and every <script> and
    event-handler attribute seen (there must be one script, ours, and no handlers)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.scripts, self.handlers, self.tags = {}, [], [], []
        self._table = self._row = self._cell = None
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        self.handlers += [name for name in attrs if name.startswith("on")]
        if tag == "script":
            self._in_script = True
            self.scripts.append("")
        elif tag == "table":
            self._table = self.tables.setdefault(attrs.get("id") or f"table{len(self.tables)}", [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ["", attrs.get("class") or "", attrs]
            self._row.append(self._cell)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False
        elif tag in ("td", "th"):
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        elif self._cell is not None:
            self._cell[0] += data


def parse(page: str) -> Tables:
    parser = Tables()
    parser.feed(page)
    return parser


def matrix_cells(page: str) -> dict:
    """{(operator, dtype, level): (text, class)} from the HTML matrix, read as a person reads it."""
    rows = parse(page).tables["matrix-table"]
    assert [text for text, _, _ in rows[0][:2]] == ["operator", "conformsup to"]
    dtypes = []
    for text, _, attrs in rows[0][2:]:
        dtypes += [text.strip()] * int(attrs.get("colspan") or 1)
    levels = [text.replace("FL", "").strip() for text, _, _ in rows[1]]
    cells = {}
    for row in rows[2:]:
        op = row[0][0].strip()
        cells[(op, "conforms up to")] = (row[1][0].strip(), row[1][1])
        for (dtype, level), (text, klass, _) in zip(zip(dtypes, levels), row[2:], strict=True):
            cells[(op, dtype, level)] = (" ".join(text.split()), klass)
    return cells


@pytest.fixture
def known(tmp_path):
    return write_results(tmp_path / "known.jsonl")


# ---- the matrix ----------------------------------------------------------------------------

def test_the_most_severe_first_order_agrees_with_the_severity_scale():
    """A cell's colour (most severe first) and a diff's regressions (the severity scale) rank alike,
    and every failing status is worse than every status that does not fail."""
    assert sorted(statuses.MOST_SEVERE_FIRST) == sorted(statuses.ALL)
    scale = [statuses.severity(s) for s in statuses.MOST_SEVERE_FIRST]
    assert scale == sorted(scale, reverse=True)
    assert min(statuses.severity(s) for s in statuses.FAILING) > max(
        statuses.severity(s) for s in statuses.ALL if s not in statuses.FAILING)
    assert statuses.severity("a-newer-status") == statuses.severity(statuses.ERROR)
    assert statuses.rank("a-newer-status") < statuses.rank(statuses.CRASH)


def test_matrix_model_for_known_results():
    built = matrix.build(known_records())
    assert built.columns == [("float32", "1_0"), ("float32", "3_0"), ("float16", "3_0"), ("int64", "6_0"),
                             ("int16", "2_1")]
    rows = {row.op: row for row in built.rows}
    assert [row.op for row in built.rows] == [CELU, CLIP]
    clip32 = rows[CLIP].cells[("float32", "3_0")]
    assert (clip32.status, clip32.headline, clip32.others, clip32.ranks) == (
        "fail", "fail 2/4", ["1 pass", "1 not reachable"], "rank 1-2")
    assert rows[CLIP].cells[("float32", "1_0")].headline == "pass 2/2"
    assert rows[CLIP].cells[("int16", "2_1")].status == "unsupported-required"
    assert rows[CLIP].cells[("int64", "6_0")].status == "unsupported"
    celu32 = rows[CELU].cells[("float32", "3_0")]
    assert (celu32.status, celu32.headline, celu32.others, celu32.ranks) == ("crash", "crash 1/2", ["1 pass"],
                                                                           "rank 1,3")
    assert rows[CELU].cells[("float16", "3_0")].headline == "not reachable 2/2"
    assert ("float32", "1_0") not in rows[CELU].cells
    # CLIP passes everything FL 1_0 requires; FL 2_1 requires int16, which the device refused.
    assert rows[CLIP].conforms_up_to == "1_0" and rows[CELU].conforms_up_to is None


def test_html_matrix_shows_each_cell_labelled_and_coloured(known):
    page = html.render_report(*read_results(known))
    cells = matrix_cells(page)
    assert cells[(CLIP, "float32", "3_0")] == ("fail 2/4 +1 pass +1 not reachable rank 1-2", "cell st-fail")
    assert cells[(CLIP, "float32", "1_0")] == ("pass 2/2 rank 4", "cell st-pass")
    assert cells[(CLIP, "int16", "2_1")] == ("unsupported (required) 1/1 rank 4", "cell st-unsupported-required")
    assert cells[(CLIP, "int64", "6_0")] == ("unsupported 1/1 rank 1", "cell st-unsupported")
    assert cells[(CELU, "float32", "3_0")] == ("crash 1/2 +1 pass rank 1,3", "cell st-crash")
    assert cells[(CELU, "float16", "3_0")] == ("not reachable 2/2 rank 1", "cell st-not-reachable")
    assert cells[(CELU, "float32", "1_0")] == ("–", "cell empty")
    assert cells[(CLIP, "conforms up to")] == ("FL 1_0", "level st-pass")
    assert cells[(CELU, "conforms up to")] == ("none", "level st-fail")


def test_html_header_holds_the_run_metadata(known):
    page = html.render_report(*read_results(known))
    page = page[:page.index('<h2 id="matrix">')]
    meta = {row[0][0]: row[1][0] for table in parse(page).tables.values() for row in table
            if len(row) == 2 and row[0][1] == "" and row[0][2] == {}}
    assert meta["backend"] == "dml" and meta["provider"] == "DmlExecutionProvider"
    assert meta["DirectML"] == "1.15.2" and meta["driver"] == "31.0.101.5186"
    assert meta["onnxruntime"] == "onnxruntime-directml 1.20.1" and meta["OS"] == "Windows-11"
    assert meta["seed"] == "3" and meta["date"] == "2026-01-02T03:04:05+00:00"
    assert meta["duration"] == "12.5 s" and meta["device"] == HOSTILE_DEVICE
    assert meta["feature level"] == "DML_FEATURE_LEVEL_5_0"


def test_html_drill_down_of_a_failing_case(known):
    page = html.render_report(*read_results(known))
    case_id = f"{CLIP}/float32/rank2[4x4]/Min=2,Max=-1/uniform[-5,5]"
    anchor = details.anchor(case_id)
    start = page.index(f'id="{anchor}"')
    block = page[start:page.index("</details>", start)]
    assert "2 of 16" in block and "1065353216" in block
    worst = [row for row in parse(block).tables.values() if row and row[0][0][0] == "index"][0]
    # a results file from before the d3d model: no interval to show ("-")
    assert [cell[0] for cell in worst[1]] == ["[1]", "3.5", "1.0", "1.0000006", "-", "5"]
    assert worst[2][5][0] == "NaN mismatch"
    svg = block[block.index("<svg"):block.index("</svg>")]
    assert svg.count("<rect") == 3  # bins 0 and 4-7, and NaN: nothing drawn for the empty bins 1, 2-3
    assert 'class="over"' in svg and 'class="ok"' in svg and 'class="nan"' in svg
    rerun = re.search(r'<pre class="rerun"><code>(.*?)</code>', block, re.S).group(1)
    assert shlex.split(unescape(rerun)) == [  # quoted for Windows (the run's OS)
        "conformance", "run", "--backend", "dml", "--seed", "3", "--tolerance", "float16=2", "-k", case_id,
        "cases/element_wise_clip.yaml"]
    # the matrix cell links to the first failing case of its cell
    assert f'href="#{anchor}"' in page


def test_hostile_strings_are_escaped_everywhere_in_html(known):
    page = html.render_report(*read_results(known))
    parsed = parse(page)
    assert len(parsed.scripts) == 1 and "__pwned" not in parsed.scripts[0]
    assert parsed.handlers == []  # no onerror=, onload= ... attributes
    assert not any(tag == "img" for tag, _ in parsed.tags)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;/td&gt;&lt;script&gt;" in page
    # the Content-Security-Policy admits that one script, by hash, and nothing else
    digest = base64.b64encode(hashlib.sha256(parsed.scripts[0].encode()).digest()).decode()
    policy = [a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") ==
              "Content-Security-Policy"][0]
    assert f"script-src 'sha256-{digest}'" in policy and "default-src 'none'" in policy


def test_html_is_one_self_contained_file(known):
    page = html.render_report(*read_results(known))
    parsed = parse(page)
    assert not [t for t, a in parsed.tags if t in ("link", "iframe", "img", "object", "embed")]
    assert not [a for t, a in parsed.tags if "src" in a or (a.get("href") or "#").lstrip()[:1] != "#"]
    assert "url(" not in page and "@import" not in page
    assert re.findall(r"https?://[^\s\"'<]+", page) == ["http://www.w3.org/2000/svg"] * page.count("<svg")


def test_the_filters_are_hidden_without_javascript(known):
    parsed = parse(html.render_report(*read_results(known)))
    form = [a for t, a in parsed.tags if t == "form"][0]
    assert "hidden" in form
    options = [a.get("value") for t, a in parsed.tags if t == "input" and a.get("name") == "status"]
    assert set(options) == {"pass", "fail", "not-reachable", "unsupported-required", "unsupported", "crash"}


# ---- markdown ------------------------------------------------------------------------------

def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_tables_stay_tables_and_escape_markup(known):
    text = markdown.report(*read_results(known))
    for block in re.findall(r"(?:^\|.*\n)+", text, re.M):
        lines = block.splitlines()
        assert len({unescaped_pipes(line) for line in lines}) == 1, block
    prose = re.sub(r"```.*?```", "", text, flags=re.S).replace("`" + HOSTILE_ID + "`", "")
    assert "<script>" not in prose and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in prose
    assert f"`{HOSTILE_ID}`" in text
    assert "&lt;b&gt;GPU&lt;/b&gt; \\| &quot;" not in text and "&lt;b&gt;GPU&lt;/b&gt; \\|" in text
    assert not re.search(r"(?<!\\)\| pipe", text) and "\\| pipe" in text and "\x1b" not in text
    # the matrix, one row per operator and feature level
    row = [line for line in text.splitlines() if line.startswith(f"| {CLIP}") and "| 3_0" in line][0]
    assert "❌ fail 2/4 (+1 pass, 1 not reachable)" in row
    assert "**❌ not conformant: 4 of 12 cases failing" in text


def test_markdown_code_spans_and_cells():
    assert markdown.code("a|b") == "`a\\|b`"
    assert markdown.code("x`y") == "``x`y``"
    assert markdown.text("a|b<c>\nd") == "a\\|b&lt;c&gt; d"


# ---- JUnit ---------------------------------------------------------------------------------

def test_junit_reads_back_with_one_testcase_per_case(known):
    header, records, footer = read_results(known)
    root = ET.fromstring(junit.render(header, records, footer).encode())
    assert root.tag == "testsuites"
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert len(cases) == len(records) == int(root.get("tests"))
    assert (root.get("failures"), root.get("errors"), root.get("skipped")) == ("3", "1", "4")
    outcome = {name: [child.tag for child in case] for name, case in cases.items()}
    expect = {"pass": [], "fail": ["failure"], "unsupported-required": ["failure"], "crash": ["error"],
              "not-reachable": ["skipped"], "unsupported": ["skipped"]}
    for r in records:
        assert outcome[r["id"]] == expect[r["status"]], r["id"]
    failure = cases[f"{CLIP}/float32/rank2[4x4]/Min=2,Max=-1/uniform[-5,5]"].find("failure")
    assert failure.get("message") == "Mismatched elements: 2 / 16 (tolerance 0 ULP, max 1065353216 ULP)"
    assert "rerun: conformance run --backend dml" in failure.text
    hostile = cases[HOSTILE_ID].find("failure")
    assert "\x07" not in hostile.text and "\x1b" not in hostile.text and "<script>" in hostile.text
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert suites[CELU].get("errors") == "1" and suites[CLIP].get("failures") == "3"
    assert cases[HOSTILE_ID].get("classname") == f"conformance.dml.{CLIP}"
    assert cases[HOSTILE_ID].get("file") == "cases/element_wise_clip.yaml"
    skipped = cases[f"{CELU}/float16/rank1[7]/Alpha=1/uniform[-10,10]"].find("skipped")
    assert skipped.get("message") == "not reachable: ONNX's Celu schema allows float32 only"


# ---- the rerun command -----------------------------------------------------------------------

def test_keyword_tells_apart_ids_that_contain_each_other():
    from conformance.caseset.selection import compile_expression
    ids = ["OP/float32/rank1/x=1/specials", "OP/float32/rank1/x=1/specials/in-place",
           "OP/float32/rank1/x=10/specials", "OP/f (and) or not/y"]
    for case_id in ids:
        matcher = compile_expression(details.keyword_for(case_id, ids))
        assert [i for i in ids if matcher(i)] == [case_id]


# ---- one real run of the default cases on the cpu backend -----------------------------------

@pytest.fixture(scope="module")
def cpu_reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cpu-reports")
    done = conformance("run", "--backend", "cpu", "--quiet", "--results", folder / "cpu.jsonl",
                       "--html", folder / "cpu.html", "--markdown", folder / "cpu.md",
                       "--junit", folder / "cpu.xml")
    assert done.returncode == 1, done.stderr  # not conformant: ONNX Runtime's CPU provider is not DirectML
    return folder


def test_cpu_run_reports_agree_with_the_results(cpu_reports):
    header, records, footer = read_results(cpu_reports / "cpu.jsonl")
    failing = [r for r in records if r["status"] in statuses.FAILING]
    assert len(records) > 700 and failing
    root = ET.parse(cpu_reports / "cpu.xml").getroot()
    assert int(root.get("tests")) == len(records)
    assert int(root.get("failures")) + int(root.get("errors")) == len(failing)
    assert int(root.get("skipped")) == sum(r["status"] in ("not-reachable", "unsupported") for r in records)
    page = (cpu_reports / "cpu.html").read_text()
    cells = matrix_cells(page)
    for row in matrix.build(records).rows:
        for (dtype, level), cell in row.cells.items():
            text, klass = cells[(row.op, dtype, level)]
            assert text.startswith(f"{statuses.short(cell.status)} {cell.shown}/{cell.total}")
            assert klass == f"cell {matrix.css_class(cell.status)}"
    from reports import html
    drawn = matrix.failing(records)[:html.DETAILS_LIMIT]  # drawn in full; the all-cases table lists the rest
    for record in drawn:
        assert f'id="{details.anchor(record["id"])}"' in page
    # the comment-sized cpu.md lists as many operators as fit (the rest in a line); cpu.full.md every one
    text = (cpu_reports / "cpu.full.md").read_text()
    headings = [c.strip() for c in text.split("\n## Operators")[1].split("\n| operator")[1].split("\n")[0].split("|")]
    for row in matrix.build(records).rows:
        line = [x for x in text.splitlines() if x.startswith(f"| {row.op} ")][0]
        cells = dict(zip(["operator"] + headings[1:], (c.strip() for c in line.split("|")[1:])))
        assert (cells["cases"], cells["pass"]) == (str(row.total), str(row.counts["pass"])), line


def test_report_command_renders_the_same_reports_from_saved_results(cpu_reports, tmp_path):
    done = conformance("report", cpu_reports / "cpu.jsonl", "--markdown", tmp_path / "again.md",
                       "--junit", tmp_path / "again.xml", "--html", tmp_path / "again.html")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "again.md").read_text() == (cpu_reports / "cpu.md").read_text().replace("cpu.full.md",
                                                                                              "again.full.md")
    assert (tmp_path / "again.full.md").read_text() == (cpu_reports / "cpu.full.md").read_text()
    assert (tmp_path / "again.xml").read_text() == (cpu_reports / "cpu.xml").read_text()
    strip = lambda page: re.sub(r"Generated by .*? on \S+", "", page)  # noqa: E731
    assert strip((tmp_path / "again.html").read_text()) == strip((cpu_reports / "cpu.html").read_text())


def test_the_rerun_command_reruns_that_case_alone(cpu_reports, tmp_path):
    header, records, _ = read_results(cpu_reports / "cpu.jsonl")
    failing = [r for r in records if r["status"] == "fail"][0]
    command = shlex.split(details.rerun_command(failing, header, details.known_ids(records, header)))
    assert command[:2] == ["conformance", "run"]
    done = conformance(*command[1:], "--quiet", "--results", tmp_path / "one.jsonl", cwd=REPO_ROOT)
    _, again, _ = read_results(tmp_path / "one.jsonl")
    assert [(r["id"], r["status"], r["max_ulp"], r["worst"]) for r in again] == [
        (failing["id"], "fail", failing["max_ulp"], failing["worst"])], done.stderr


def test_a_report_needs_only_its_results_file(tmp_path):
    """The rerun command's -k tells the case apart from its file's other cases (here the id of the
    in-place variant contains it whole) and names the file, though the run selected the case alone
    and the file is gone when the report is rendered."""
    cases = tmp_path / "celu.yaml"
    cases.write_text("operator: ACTIVATION_CELU\ngroups:\n"
                     "  - {name: apart, dtypes: [float32], shapes: [[2, 3]], inputs: [{kind: uniform}]}\n"
                     "  - {name: in place, dtypes: [float32], shapes: [[2, 3]], in_place: true,\n"
                     "     inputs: [{kind: uniform}]}\n")
    results, first = tmp_path / "r.jsonl", tmp_path / "first.md"
    done = conformance("run", cases, "--backend", "python:faults:off_by_tolerance_plus_one", "-k", "not in-place",
                       "--quiet", "--results", results, "--markdown", first)
    assert done.returncode == 1, done.stderr
    cases.unlink()
    again = tmp_path / "again.md"
    done = conformance("report", results, "--markdown", again)
    assert done.returncode == 0, done.stderr
    assert again.read_text() == first.read_text().replace("first.full.md", "again.full.md")
    header, (record,), _ = read_results(results)
    command = shlex.split(details.rerun_command(record, header, details.known_ids([record], header)))
    assert command[-1] == str(cases)
    keyword = compile_expression(command[command.index("-k") + 1])
    ids = header["case_files"][str(cases)]["ids"]
    assert len(ids) == 2 and [i for i in ids if keyword(i)] == [record["id"]]
    assert f"'{command[command.index('-k') + 1]}'" in again.read_text()


def test_runtime_messages_from_a_device_are_escaped(tmp_path):
    done = conformance("run", "--backend", "python:test_reports_fixtures:hostile", "--quiet", "-k",
                       "CLIP and float32 and rank4 or CELU and float32 and rank1", "--results", tmp_path / "h.jsonl",
                       "--html", tmp_path / "h.html", "--junit", tmp_path / "h.xml")
    assert done.returncode == 1, done.stderr
    _, records, _ = read_results(tmp_path / "h.jsonl")
    assert {r["status"] for r in records} >= {"error", "fail"}
    page = (tmp_path / "h.html").read_text()
    parsed = parse(page)
    assert len(parsed.scripts) == 1 and parsed.handlers == []
    assert "driver said &lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    ET.parse(tmp_path / "h.xml")


def test_report_refuses_what_is_not_a_results_file(tmp_path):
    (tmp_path / "x.jsonl").write_text("hello\n")
    done = conformance("report", tmp_path / "x.jsonl", "--html", tmp_path / "x.html")
    assert done.returncode == 2 and f"{tmp_path / 'x.jsonl'}:1: not a results record" in done.stderr
    assert not (tmp_path / "x.html").exists()
    (tmp_path / "empty.jsonl").write_text("\n")
    assert "not a results file" in conformance("report", tmp_path / "empty.jsonl").stderr
    assert conformance("report", tmp_path / "missing.jsonl").returncode == 2


@pytest.mark.parametrize("bad", ["{\"type\": \"case\", \"id\": \"cut", "[1, 2]", "not json"])
def test_a_bad_line_in_the_middle_of_results_is_an_error_naming_file_and_line(bad, tmp_path):
    path = write_results(tmp_path / "r.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:5] + [bad] + lines[5:]) + "\n")
    done = conformance("report", path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"error: {path}:6: not a results record ("), done.stderr


def test_a_cut_last_line_is_skipped_and_said(tmp_path):
    path = write_results(tmp_path / "r.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:30])  # died writing the last case
    header, records, footer = read_results(path)
    assert header["truncated_line"] == len(lines) - 1 and len(records) == len(lines) - 3 and footer is None
    done = conformance("report", path)
    assert done.returncode == 0 and f"{path}:{len(lines) - 1}: the last line is cut short" in done.stderr


def test_partial_results_say_so(tmp_path):
    path = write_results(tmp_path / "partial.jsonl")
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])  # the footer cut by a crash
    page = html.render_report(*read_results(path))
    assert "partial results" in page and "did not finish" in page


def test_markdown_and_junit_without_a_footer_say_the_results_are_partial():
    header, records = dict(HEADER), known_records()
    text = markdown.report(header, records, None)
    assert "not conformant" in text and "the results are partial" in text
    assert "the results are partial" not in markdown.report(header, records, FOOTER)
    root = ET.fromstring(junit.render(header, records, None).encode())
    assert int(root.get("tests")) == len(records)
    footer = [p.get("value") for p in root.iter("property") if p.get("name") == "footer"]
    assert footer and footer[0].endswith("the results are partial")


def test_gzipped_results_read_as_the_plain_file_and_a_bad_gzip_is_an_error(tmp_path):
    import gzip
    path = write_results(tmp_path / "r.jsonl")
    packed = tmp_path / "r.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert read_results(packed) == read_results(path)
    written = tmp_path / "w.jsonl.gz"
    done = conformance("run", "--backend", "cpu", "-k", "ACTIVATION_CELU and rank1", "--results", written)
    assert done.returncode in (0, 1) and gzip.decompress(written.read_bytes()).startswith(b'{"type": "header"')
    assert read_results(written)[1]
    (tmp_path / "bad.jsonl.gz").write_bytes(b"not gzip at all\n")
    done = conformance("report", tmp_path / "bad.jsonl.gz")
    assert done.returncode == 2 and "not a readable gzip file" in done.stderr, done.stderr


# ---- bit patterns of the worst elements ------------------------------------------------------

def test_worst_elements_carry_the_bits_that_decimals_hide():
    """A NaN's payload and a denormal flushed to zero show in the bits of input, expected and actual,
    in each one's own type (float16: four hex digits; several inputs: one pattern each)."""
    import numpy as np

    from conformance.judge.compare import compare
    payload = np.array([0x7fc00123], dtype=np.uint32).view(np.float32)[0]
    tiny = np.array([1], dtype=np.uint32).view(np.float32)[0]  # the smallest denormal
    x = np.array([1.0, tiny, 3.0], dtype=np.float32)
    expected = np.array([1.0, tiny, 3.0], dtype=np.float32)
    actual = np.array([payload, 0.0, 3.0], dtype=np.float32)
    worst = compare(x, expected, actual, tolerance=0, flush_allowed=False).worst
    assert [(w["actual"], w["bits"]) for w in worst] == [
        ("nan", {"input": "0x3f800000", "expected": "0x3f800000", "actual": "0x7fc00123"}),
        (0.0, {"input": "0x00000001", "expected": "0x00000001", "actual": "0x00000000"})]
    half = compare(np.float16([2.0]), np.float16([-0.5]), np.float16([0.5]), tolerance=0).worst[0]
    assert half["bits"] == {"input": "0x4000", "expected": "0xb800", "actual": "0x3800"}
    pair = compare((np.float32([1.0]), np.float32([-2.0])), np.float32([-1.0]), np.float32([1.0]), tolerance=0)
    assert pair.worst[0]["bits"]["input"] == ["0x3f800000", "0xc0000000"]


def test_a_real_run_records_bits_that_match_its_decimals_and_reports_show_them(cpu_reports):
    import numpy as np
    _, records, _ = read_results(cpu_reports / "cpu.jsonl")
    checked = 0
    for record in records:
        for item in record.get("worst", []) + ((record.get("d3d") or {}).get("worst") or []):
            # each value in its output's type (CAST's OutputType, DYNAMIC_QUANTIZE_LINEAR's UINT8); an index
            # output's elements are indices, named by their slice, without bits
            spec = specs.get(record["op"])
            output = next(o for o in spec.outputs_for(record["params"]) if o.short == item.get("output", o.short))
            if output.allowed is not None and (output.allowed_when is None or output.allowed_when(record["params"])):
                assert item["bits"] == {} and "allowed" in item, record["id"]
                continue
            # an output computed from several inputs' statistics (DYNAMIC_QUANTIZE_LINEAR's) has no one input
            assert set(item["bits"]) in ({"input", "expected", "actual"}, {"expected", "actual"}), record["id"]
            dtype = spec.tensor_type(output.name, record["dtype"], record["params"])
            for name in ("expected", "actual"):
                value, bits = item[name], item["bits"][name]
                assert len(bits) == 2 + 2 * np.dtype(dtype).itemsize, (record["id"], bits)
                if isinstance(value, str):  # nan, inf: no decimal to hold the bits to
                    continue
                pattern = np.array([value], dtype=dtype).view(f"u{np.dtype(dtype).itemsize}")
                assert int(bits, 16) == int(pattern[0]), (record["id"], name, value, bits)
                checked += 1
    assert checked > 100
    page = (cpu_reports / "cpu.html").read_text()
    first = [r for r in records if r["status"] == "fail"][0]
    start = page.index(f'id="{details.anchor(first["id"])}"')
    block = page[start:page.index("</details>", start)]
    for item in first["worst"]:
        assert f'<span class="bits" title="the bits of the actual in its data type">{item["bits"]["actual"]}</span>' \
            in block
    text = (cpu_reports / "cpu.md").read_text()
    shown = details.deciding_worst(first)[0]
    assert f"`{shown['bits']['input']}`" in text and f"`{shown['bits']['actual']}`" in text


# ---- the markdown report fits a pull request comment ----------------------------------------

def test_the_markdown_report_fits_a_comment_and_links_the_whole_one(cpu_reports):
    header, records, footer = read_results(cpu_reports / "cpu.jsonl")
    short, whole = (cpu_reports / "cpu.md").read_text(), (cpu_reports / "cpu.full.md").read_text()
    assert len(short) < markdown.COMMENT_LIMIT < len(whole)
    assert "[cpu.full.md](<cpu.full.md>)" in short and "cpu.full.md" not in whole
    failing = [r for r in records if r["status"] in statuses.FAILING]
    assert all(markdown.code(r["id"]) in whole for r in failing)  # an id's '|' (ExecutionFlags) escaped
    # a group of failing cases: its first case, with input, expected and actual of its worst elements
    group = details.failure_groups(records)[0]
    assert f"({len(group.records)} cases)" in short and f"`{group.first['id']}`" in short
    assert "| element | " in short and "input" in short and "expected" in short and "actual" in short
    # numbers right-aligned: the operator table's rule row marks every count column
    rule = short.split("\n| operator ")[1].split("\n")[1]
    assert rule.startswith("|:") and rule.count("-:|") >= 3
    for term in ("other model differs", "off an exact value", "conforms up to FL"):
        assert f"**{term}**: " in short


def test_a_full_suite_that_fails_everywhere_still_fits_a_comment(cpu_reports):
    """Every case of the real run given a real failure's figures (a group per operator and type,
    over 200 groups), then every case its own operator: the report stays under the limit, says
    what it left out, and the whole report holds every case."""
    import copy
    header, records, footer = read_results(cpu_reports / "cpu.jsonl")
    bad = [r for r in records if r["status"] == "fail" and r.get("d3d")][0]
    figures = {k: bad[k] for k in ("status", "worst", "d3d", "verdicts", "max_ulp", "mismatches", "message",
                                   "ulp_histogram", "tolerance_model")}
    failing = [{**r, **copy.deepcopy(figures)} for r in records]
    assert len(details.failure_groups(failing)) > 200
    short = markdown.report(header, failing, footer, full_name="all.full.md")
    assert len(short) < markdown.COMMENT_LIMIT and "more groups" in short and "in the whole report" in short
    assert short.count("\n### ") > 20
    scattered = [{**r, "op": f"OP_{n}"} for n, r in enumerate(failing[:3000])]
    short = markdown.report(header, scattered, footer, full_name="all.full.md")
    assert len(short) < markdown.COMMENT_LIMIT and "more operators: in the whole report" in short
    whole = markdown.report(header, failing, footer)
    assert all(markdown.code(r["id"]) in whole for r in failing)  # an id's '|' (ExecutionFlags) escaped


def test_markdown_files_name_the_whole_report_beside_the_short_one():
    assert [str(p) for p in (markdown.full_path("a/cpu.md"), markdown.full_path("b/report"))] == [
        "a/cpu.full.md", "b/report.full.md"]


# ---- the terminal summary fits the terminal ------------------------------------------------

@pytest.mark.parametrize("columns", [80, 100, 250])
def test_the_summary_fits_the_terminal_and_explains_its_terms(cpu_reports, columns):
    import os
    _, records, _ = read_results(cpu_reports / "cpu.jsonl")
    ids = {r["id"] for r in records}
    done = conformance("report", cpu_reports / "cpu.jsonl", env={**os.environ, "COLUMNS": str(columns)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    too_wide = [line for line in lines if len(line) > columns and line.strip() not in ids]  # an id is not broken
    assert not too_wide, too_wide
    table = lines[lines.index(next(line for line in lines if line.startswith("operator "))):]
    if columns >= 200:  # room for every heading in full
        assert "unsupported (required)" in table[0] and "other model differs" in table[0]
    prose = " ".join(done.stdout.split())
    assert "other model differs: cases whose two tolerance models give different verdicts" in prose
    assert "off an exact value: an element missed a value the Direct3D rules require exactly" in prose
    if columns < 150:  # short headings, each explained
        assert "unsupported (required)" not in table[0]
        assert re.search(r"[\w-]+ = [^;]*unsupported \(required\)", " ".join(" ".join(lines[-20:]).split()))
    # each operator's figures are there, on its line or the next
    for row in matrix.build(records).rows:
        at = next(n for n, line in enumerate(lines) if line.split() and line.split()[0] == row.op)
        figures = (lines[at] + " " + lines[at + 1]).split() if len(lines[at].split()) == 1 else lines[at].split()
        assert figures[1:3] == [str(row.total), str(row.counts["pass"])], (row.op, figures)
