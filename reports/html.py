"""HTML reports: one self-contained file each (inline CSS, JS and SVG; no network).

Jinja2 escapes every value (autoescape on): case ids, parameters and runtime messages come
from case files and drivers, and show as text. A Content-Security-Policy lets only the page's
own script run, by its hash, as a second line of defence.
"""
import base64
import functools
import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from conformance import __version__, statuses
from conformance.judge.verdicts import CONFORMS_UP_TO, TERMS, d3d_text, disagreements, judgement, other_verdict, ulp_text
from reports import details, matrix

TEMPLATES = Path(__file__).resolve().parent / "templates"
DETAILS_LIMIT = 1000  # failing cases drawn in full; the all-cases table lists every one


@functools.lru_cache(maxsize=1)
def environment() -> Environment:
    """One, its templates compiled once (the dashboard renders hundreds of pages)."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True,
                      trim_blocks=True, lstrip_blocks=True)
    env.globals.update(label=statuses.label, short=statuses.short, css_class=matrix.css_class,
                       element_values=details.element_values, element_name=details.element_name)
    return env


def page(template: str, **context) -> str:
    """A template of templates/ (extending base.html.j2) rendered with the report's CSS, script and CSP."""
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    return environment().get_template(template).render(
        css=Markup((TEMPLATES / "report.css").read_text(encoding="utf-8")), script=Markup(script),
        script_hash=f"sha256-{digest}", version=__version__,
        generated=datetime.now(timezone.utc).isoformat(timespec="seconds"), **context)


def notes_for(header: dict) -> list:
    notes = []
    provider = header.get("provider") or ""
    if provider and "Dml" not in provider and "dml" not in (header.get("backend") or ""):
        notes.append(f"This run used {provider}, not DirectML: it measures that provider against the "
                     "DirectML specification.")
    return notes


def render_report(header: dict, records: list, footer: dict | None) -> str:
    table = matrix.build(records)
    conformant, verdict = matrix.verdict(records)
    if footer is None or (footer or {}).get("interrupted"):
        conformant, verdict = False, verdict + " (partial results: the run did not finish)"
    failing = matrix.failing(records)
    ids = details.known_ids(records, header)
    shown = failing[:DETAILS_LIMIT]
    anchors = {r["id"]: details.anchor(r["id"]) for r in shown}
    first_failure = {}  # (op, dtype, level) and (op, dtype): the anchor of its first failing case
    for record in shown:
        first_failure.setdefault((record["op"], record["dtype"], record["feature_level"]), anchors[record["id"]])
        first_failure.setdefault((record["op"], record["dtype"]), anchors[record["id"]])
    by_op = {}
    for record in shown:
        by_op.setdefault(record["op"], []).append(case_item(record, header, ids))
    present = {r["status"] for r in records}
    legend = [s for s in statuses.MOST_SEVERE_FIRST if s in present] + sorted(present - set(statuses.ALL))
    counts = {s: sum(1 for r in records if r["status"] == s) for s in legend}
    return page("report.html.j2", header=header, records=records, matrix=table, verdict=verdict,
                 conformant=conformant, notes=notes_for(header),
                 metadata=details.metadata_rows(header, footer, records), legend=legend,
                 status_counts=list(counts.items()), operators=[row.op for row in table.rows],
                 dtypes=[d for d, _ in table.dtypes], failing=failing, failing_by_op=sorted(by_op.items()),
                 anchors=anchors, first_failure=first_failure, details_limit=DETAILS_LIMIT,
                 disagreeing=[(r, judgement(r)) for r in disagreements(records)[:DETAILS_LIMIT]],
                 disagreeing_count=len(disagreements(records)), other=other_verdict, terms=TERMS,
                 conforms_meaning=TERMS[CONFORMS_UP_TO])


def case_item(record: dict, header: dict, ids) -> dict:
    """What macros.html.j2's case_details draws of a failing case: its facts, histogram, worst
    elements and rerun command (ids: details.known_ids of its run)."""
    return {"record": record, "anchor": details.anchor(record["id"]),
            "params": _compact(record.get("params")), "generator": _compact(record.get("generator")),
            "placement": _compact(record.get("placement")), "histogram": details.histogram(record),
            "rerun": details.rerun_command(record, header, ids), "judgement": judgement(record),
            "d3d": d3d_text(record), "ulp": ulp_text(record)}


def render_diff(result) -> str:
    from reports.diff import MEANING
    a = dict(details.metadata_rows(result.header_a, result.footer_a))
    b = dict(details.metadata_rows(result.header_b, result.footer_b))
    names = list(a) + [name for name in b if name not in a]
    return page("diff.html.j2", diff=result, meanings=MEANING, other=other_verdict,
                 meta=[(name, a.get(name, "-"), b.get(name, "-")) for name in names])


def render_compare(result) -> str:
    from reports.diff import ORDER
    return page("compare.html.j2", cmp=result, kinds=ORDER, other=other_verdict)


def _compact(value) -> str:
    if value is None or value == {}:
        return "-"
    return json.dumps(value, sort_keys=False, separators=(", ", ": "))
