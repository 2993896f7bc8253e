"""Markdown reports (GitHub flavour, through tabulate), fit for a README, a release note or a pull
request comment. Cell text is escaped: '|' would end a cell, '<' could open HTML."""
import re

from tabulate import tabulate

from conformance import statuses
from conformance.judge.verdicts import disagreements, judgement, operator_rows, other_verdict
from reports import details, matrix

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # a terminal's colour codes, a bell ...
FAILING_ROWS = 200  # a pull request comment holds about 65,000 characters


def text(value) -> str:
    """Plain cell text: one line, '|' and '\\' escaped, '<' '>' '&' as entities."""
    value = "" if value is None else str(value)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = value.replace("\\", "\\\\").replace("|", "\\|")
    return _CONTROL.sub("", re.sub(r"[\r\n]+", " ", value))


def code(value) -> str:
    """An inline code span: backticks fenced by a longer run, '|' escaped (GitHub reads \\| in tables)."""
    value = _CONTROL.sub("", re.sub(r"[\r\n]+", " ", "" if value is None else str(value))).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def fenced(value: str, info: str = "") -> str:
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    return f"{fence}{info}\n{value}\n{fence}"


def table(rows, headers) -> str:
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def cell(cell) -> str:
    if cell is None or cell.status is None:
        return ""
    others = f" (+{', '.join(cell.others)})" if cell.others else ""
    return text(f"{statuses.icon(cell.status)} {statuses.short(cell.status)} "
                f"{cell.shown}/{cell.total}{others}")


def meta_table(header, footer, records=None) -> str:
    rows = [[text(name), text(value)] for name, value in details.metadata_rows(header, footer, records)
            if name not in ("argv", "provider_options", "session_config")]
    return table(rows, ["run", ""])


def operator_table(records) -> str:
    rows = operator_rows(records)
    used = matrix.operator_columns(rows)
    return table([[text(row[key]) for key, _ in used] for row in rows], [t for _, t in used])


def matrix_table(records) -> str:
    """Operators and feature levels by rows, data types by columns: narrow enough for a page."""
    built = matrix.build(records)
    dtypes = [d for d, _ in built.dtypes]
    rows = []
    for row in built.rows:
        for level in sorted({level for (_, level) in row.cells}, key=matrix.level_key):
            rows.append([text(row.op), text(level)] + [cell(row.cells.get((d, level))) for d in dtypes])
    return table(rows, ["operator", "FL"] + [text(d) for d in dtypes])


def report(header: dict, records: list, footer: dict | None) -> str:
    conformant, verdict = matrix.verdict(records)
    parts = ["# DirectML conformance summary", "", meta_table(header, footer, records), "",
             f"**{'✅' if conformant else '❌'} {text(verdict)}**", ""]
    parts += ["## Operators", "", operator_table(records), "",
              "## Compatibility matrix", "",
              "Cases by operator, the feature level that first requires them, and data type: "
              + ", ".join(f"{statuses.icon(s)} {statuses.label(s)}" for s in statuses.MOST_SEVERE_FIRST) + ".", "",
              matrix_table(records), ""]
    failing = matrix.failing(records)
    if failing:
        ids = details.known_ids(records, header)
        shown = failing[:FAILING_ROWS]
        parts += [f"## Failing cases ({len(failing)})", "",
                  table([[code(r["id"]), text(statuses.label(r["status"])),
                          text(r.get("max_ulp") if r.get("max_ulp") is not None else "-"),
                          text(judgement(r) or _first_line(r.get("message"))[:details.MESSAGE_SHOWN])] for r in shown],
                        ["case", "status", "max ULP", "judgement (the other model where it differs)"]), ""]
        if len(failing) > len(shown):
            parts += [f"... and {len(failing) - len(shown)} more (see the HTML report or the results file).", ""]
        commands = "\n".join(details.rerun_command(r, header, ids) for r in shown)
        parts += ["<details><summary>Rerun a failing case alone</summary>", "", fenced(commands, "sh"), "",
                  "</details>", ""]
    parts += disagreement_section(records)
    return "\n".join(parts)


def disagreement_section(records) -> list:
    """The cases whose two tolerance models disagree: exact to N ULP is one story, within what
    Direct3D allows is another."""
    differing = disagreements(records)
    if not differing:
        return []
    shown = differing[:FAILING_ROWS]
    rows = [[code(r["id"]), text(statuses.label(r["status"])), text(judgement(r))] for r in shown]
    more = [f"... and {len(differing) - len(shown)} more.", ""] if len(differing) > len(shown) else []
    return [f"## Where the tolerance models disagree ({len(differing)})", "",
            "Each case is judged by both models; the status is the deciding model's.", "",
            table(rows, ["case", "status", "judgement"]), ""] + more


def _first_line(message) -> str:
    return message.splitlines()[0] if message else ""


def _status_ulp(record) -> str:
    if record is None:
        return "-"
    ulp = record.get("max_ulp")
    other = other_verdict(record)
    return (f"{statuses.label(record['status'])}" + (f" ({ulp} ULP)" if ulp is not None else "")
            + (f" [{other[0]}: {other[1]}]" if other else ""))


def diff(result) -> str:
    from reports.diff import MEANING
    runs = [["", text(result.name_a), text(result.name_b)]]
    for key in ("backend", "provider", "device", "onnxruntime_package", "directml", "driver", "start"):
        a, b = result.header_a.get(key), result.header_b.get(key)
        if a or b:
            runs.append([text(key), text(a or "-"), text(b or "-")])
    parts = ["# Conformance diff", ""] + [f"> **Warning**: {text(note)}\n" for note in result.warnings()]
    parts += [table(runs[1:], runs[0]), "",
              f"**{len(result.regressions)} regression(s)**: {text(result.summary())}", ""]
    if result.missing:
        parts += [f"**{text(result.verdict())}**", ""]
    for kind, items in result.by_kind():
        parts += [f"## {kind.capitalize()} ({len(items)})", "", text(MEANING[kind]), "",
                  table([[code(c.id), text(_status_ulp(c.before)), text(_status_ulp(c.after))] for c in items],
                        ["case", "A", "B"]), ""]
    return "\n".join(parts)


def compare(result) -> str:
    runs = [[text(r.label), text(r.header.get("provider") or "-"), text(r.header.get("onnxruntime") or "-"),
             text(r.header.get("directml") or "-"), text(len(r.records)), text(r.failing)] for r in result.runs]
    labels = [text(label) for label in result.labels]
    parts = ["# Conformance comparison", "",
             table(runs, ["run", "provider", "onnxruntime", "DirectML", "cases", "failing"]), "",
             "## Conforms up to", "",
             table([[text(op)] + [text(_level(level)) for level in levels] for op, levels in result.levels],
                   ["operator"] + labels), "",
             "## Matrix", "",
             table([[text(op), text(dtype), text(level)] + [cell(c) for c in cells]
                    for op, dtype, level, cells in result.rows], ["operator", "data type", "FL"] + labels), ""]
    if result.differing:
        shown = result.differing[:FAILING_ROWS]
        parts += [f"## Cases that differ ({len(result.differing)})", "",
                  table([[code(case_id)] + [text(_status_ulp(r)) for r in records] for case_id, records in shown],
                        ["case"] + labels), ""]
        if len(result.differing) > len(shown):
            parts += [f"... and {len(result.differing) - len(shown)} more.", ""]
    if result.steps:
        parts += releases(result.steps)
    return "\n".join(parts)


def releases(steps) -> list:
    """Lines: what changed between consecutive releases (reports.releases.Step), regressions first."""
    from reports.diff import ORDER
    parts = ["## Between consecutive releases", "",
             table([[text(s.before.label), text(s.after.label)] + [text(s.diff.counts().get(kind, 0)) for kind in ORDER]
                    + [text(s.diff.unchanged)] for s in steps], ["from", "to", *ORDER, "unchanged"]), ""]
    for step in steps:
        if not step.diff.changes:
            continue
        parts += [f"### {text(step.before.label)} → {text(step.after.label)}", "",
                  f"**{len(step.diff.regressions)} regression(s)**: {text(step.diff.summary())}", "",
                  table([[code(c.id), text(c.kind), text(_status_ulp(c.before)), text(_status_ulp(c.after))]
                         for c in step.diff.changes], ["case", "change", "before", "after"]), ""]
    return parts


def _level(level) -> str:
    if level == "":
        return "-"
    return f"FL {level}" if level else "none"
