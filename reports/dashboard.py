"""The results dashboard (`conformance store html OUT/`): a static site of a results store's runs,
made from plain data the command line reads from the store (reports never import it):

    pages(runs, verdicts, steps, read_run) -> yields (path relative to OUT, HTML text)

    runs      [Run.as_dict()], oldest first          (Store.runs)
    verdicts  [dataclasses.asdict(Verdict)]          (Store.latest: one a device x backend x op x type x level)
    steps     {run id: asdict(Changes)}              (Store.timeline: each run against earlier verdicts)
    read_run  run id -> (header, records, footer)    (Store.records: as read_results gives them)

    index.html          a row per device and backend, a column per operator: each cell its latest verdict
    devices/ROW.html    a row's runs oldest first, and what changed at each (regressions, fixes, other)
    cells/ROW/OP.html   an operator on a row: each case's history, and the failing cases of its latest
                        verdict drawn as the report draws them (macros.html.j2's case_details)

A row is what the store's latest verdicts are kept by: a device (its adapter's name, as its runs
record it) through one backend. Its cells may come from several runs (another DirectML release or
driver): each cell is the latest run that holds its cases. Every value from a results file is
escaped (Jinja2's autoescape); a file name is made from one only through slug().
"""
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from conformance import statuses
from reports import details, html, matrix

CHANGES_SHOWN = 60  # changes of one kind listed on a timeline step; the rest counted
MARKER = ".dml-conformance-dashboard"  # in OUT: a folder this command wrote, that it may replace


def slug(text, plain=r"[A-Z0-9_]{1,80}") -> str:
    """A file name for text: itself where it matches plain, else its letters and digits and a hash."""
    text = str(text)
    if re.fullmatch(plain, text):
        return text
    readable = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]
    return f"{readable}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:10]}".lstrip("-")


def text_or_none(value):
    """A value as the store keeps a record's data type and feature level (text, or None)."""
    return None if value is None else str(value)


@dataclass
class Latest:
    """One index cell: the cases of an operator on a row in their cell's latest run, every type and level."""
    cell: matrix.Cell = field(default_factory=matrix.Cell)
    parts: dict = field(default_factory=dict)  # (dtype, level) -> (verdict, run)
    items: list = field(default_factory=list)  # html.case_item of each failing case

    @cached_property
    def failing_ids(self) -> set:
        return {item["record"]["id"] for item in self.items}

    @property
    def max_ulp(self):
        found = [r["max_ulp"] for r in self.cell.records if isinstance(r.get("max_ulp"), (int, float))]
        return max(found) if found else None


@dataclass
class Row:
    device: str | None
    backend: str | None
    runs: list = field(default_factory=list)  # run dicts, oldest first
    latest: dict = field(default_factory=dict)  # op -> Latest
    history: dict = field(default_factory=dict)  # case id -> [(run, status, max_ulp)], oldest first
    op_of: dict = field(default_factory=dict)  # case id -> op

    @property
    def slug(self) -> str:
        return slug(f"{self.backend}-{self.device}", plain=r"(?!)")

    @property
    def title(self) -> str:
        return f"{self.backend or '?'} on {self.device or '?'}"

    @property
    def cell_runs(self) -> list:
        """The runs the row's cells come from, oldest first."""
        ids = {run["run_id"] for latest in self.latest.values() for _, run in latest.parts.values()}
        return [run for run in self.runs if run["run_id"] in ids]

    def ops(self) -> list:
        return sorted(set(self.op_of.values()))

    def cases_of(self, op) -> list:
        return sorted(case for case, of in self.op_of.items() if of == op)


def build(runs, verdicts, read_run) -> list:
    """[Row] by device and backend, each run read once; only the records of latest cells are kept."""
    rows = {}
    for run in runs:
        rows.setdefault((run["device"], run["backend"]), Row(run["device"], run["backend"])).runs.append(run)
    wanted = {(v["device"], v["backend"], v["op"], v["dtype"], v["feature_level"]): v for v in verdicts}
    for run in runs:
        header, records, _ = read_run(run["run_id"])
        row, ids = rows[(run["device"], run["backend"])], None
        for record in records:
            row.history.setdefault(record["id"], []).append((run, record["status"], record.get("max_ulp")))
            row.op_of[record["id"]] = record["op"]
            part = (text_or_none(record.get("dtype")), text_or_none(record.get("feature_level")))
            verdict = wanted.get((run["device"], run["backend"], record["op"], *part))
            if verdict is None or verdict["run_id"] != run["run_id"]:
                continue
            latest = row.latest.setdefault(record["op"], Latest())
            latest.cell.records.append(record)
            latest.parts[part] = (verdict, run)
            if record["status"] in statuses.FAILING and len(latest.items) < html.DETAILS_LIMIT:
                ids = ids if ids is not None else details.known_ids(records, header)
                item = html.case_item(record, header, ids)
                latest.items.append({**item, "anchor": "worst-" + item["anchor"]})  # the case's history row has its anchor
    return sorted(rows.values(), key=lambda row: (str(row.device), str(row.backend)))


def pages(runs, verdicts, steps, read_run):
    """(path, HTML) of every page of the site."""
    rows = build(runs, verdicts, read_run)
    ops = sorted({v["op"] for v in verdicts})
    cell_path = {(row.slug, op): f"cells/{row.slug}/{slug(op)}.html" for row in rows for op in row.ops()}
    common = {"ulp": ulp, "history_runs": history_runs, "history_marks": history_marks, "anchor": details.anchor, "label": statuses.label, "proof": proof,
              "release": release, "legend": [s for s in statuses.MOST_SEVERE_FIRST]}
    yield "index.html", html.page("dashboard_index.html.j2", rows=rows, ops=ops, cell_path=cell_path,
                                  runs=runs, root="", **common)
    for row in rows:
        yield f"devices/{row.slug}.html", html.page(
            "dashboard_device.html.j2", row=row, steps=steps, cell_path=cell_path, root="../",
            kinds=("regression", "fix", "other"), shown=CHANGES_SHOWN, **common)
        for op in row.ops():
            yield cell_path[(row.slug, op)], html.page(
                "dashboard_cell.html.j2", row=row, op=op, latest=row.latest.get(op), cases=row.cases_of(op),
                root="../../", **common)


def history_runs(row: Row, cases) -> list:
    """The row's runs holding any of cases, oldest first: the columns of a cell page's history."""
    ids = {run["run_id"] for case in cases for run, _, _ in row.history[case]}
    return [run for run in row.runs if run["run_id"] in ids]


def history_marks(entries, columns) -> list:
    """[(status, max ULP, changed) or None] of a case's history entries, a column each."""
    by_run, previous, marks = {}, None, []
    for run, status, max_ulp in entries:
        by_run[run["run_id"]] = (status, max_ulp, previous is not None and status != previous)
        previous = status
    return [by_run.get(run["run_id"]) for run in columns]


def ulp(value) -> str:
    """A max ULP short enough for a cell: 3, 1.5, 21907, 8.4e6, inf."""
    if value is None:
        return ""
    if not isinstance(value, (int, float)):
        return str(value)
    if abs(value) < 1e5 or value != value or abs(value) == float("inf"):
        return f"{value:g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def release(run: dict) -> str:
    """'DirectML 1.15.4.0 (release 1.24.4)', or what of it the run records."""
    parts = [f"DirectML {run['directml']}" if run.get("directml") else "",
             f"(release {run['dml_release']})" if run.get("dml_release") else ""]
    return " ".join(part for part in parts if part) or "-"


def proof(run: dict) -> list:
    """[(name, text)] of what a run proves it ran on, for a row's header."""
    sha = run.get("directml_sha256")
    return [(name, value) for name, value in (
        ("backend", run.get("backend")), ("adapter", run.get("adapter") or run.get("device")),
        ("driver", run.get("driver")), ("DirectML", release(run) if run.get("directml") else None),
        ("DirectML.dll sha256", sha and f"{sha[:16]}..."), ("ONNX Runtime", run.get("onnxruntime")),
        ("harness", run.get("harness")), ("date", run.get("start"))) if value]


def counts_text(counts: dict) -> str:
    return ", ".join(f"{statuses.label(s)} {n}" for s, n in sorted(Counter(counts).items(),
                                                                  key=lambda i: statuses.rank(i[0])))
