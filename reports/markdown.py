"""Markdown reports (GitHub flavour), fit for a README, a release note or a pull request comment
(a run's report: under COMMENT_LIMIT characters, the whole one in a file beside it). Cell text
is escaped: '|' would end a cell, '<' could open HTML."""
import re
from collections import Counter
from pathlib import Path

from conformance import statuses
from conformance.judge.verdicts import MODELS_DIFFER, TERMS, disagreements, judgement, operator_rows, other_verdict
from reports import details, matrix

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # a terminal's colour codes, a bell ...
COMMENT_LIMIT = 65_536  # characters a GitHub pull request comment may hold
PADDED = 48  # columns up to this wide are padded to line up in the file
EXAMPLE_ELEMENTS = 3  # worst elements shown for a group of failing cases
EXAMPLE_IDS = 2  # other case ids a group names
EXAMPLE_OPERATORS = 40  # operators a count of disagreements names
FAILING_ROWS = 200  # rows of a comparison's list of differing cases
_NUMBER = re.compile(r"-|-?[0-9][0-9,]*(\.[0-9]+)?")


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


def table(rows, headers, right=()) -> str:
    """A GitHub table; columns of numbers (or '-') right-aligned, and those numbered in right. Narrow columns are padded so the
    file reads as a table too; wide ones are not, so a long case id costs its length once."""
    rows = [[str(c) for c in row] for row in rows]
    columns = list(zip(*rows)) if rows else [()] * len(headers)
    numeric = [number in right or (bool(col) and all(_NUMBER.fullmatch(c) for c in col) and any(c != "-" for c in col))
               for number, col in enumerate(columns)]
    widths = [max([len(h), *map(len, col)]) if max([len(h), *map(len, col)]) <= PADDED else 0
              for h, col in zip(headers, columns)]

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if column_right else c.ljust(w)
                                 for c, w, column_right in zip(cells, widths, numeric)) + " |"
    rule = "|" + "|".join("-" * max(w + 1, 3) + ":" if column_right else ":" + "-" * max(w + 1, 3)
                          for w, column_right in zip(widths, numeric)) + "|"
    return "\n".join([line(headers), rule, *map(line, rows)])


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


def operator_table(records, only=None, limit=None) -> str:
    """only: the operators to list (None: all); limit: at most this many characters, the rows that
    do not fit said in a line."""
    rows = [row for row in operator_rows(records) if only is None or row["operator"] in only]
    used = matrix.operator_columns(rows, extra=[("models_disagree", MODELS_DIFFER)])
    cells = [[text(row[key]) for key, _ in used] for row in rows]
    shown = table(cells, [t for _, t in used])
    kept = len(cells)
    while limit is not None and len(shown) > limit and kept:
        kept = min(kept - 1, kept * limit // len(shown))
        shown = table(cells[:kept], [t for _, t in used]) + \
            f"\n\n... and {len(cells) - kept} more operators: in the whole report."
    return shown


def matrix_table(records) -> str:
    """Operators and feature levels by rows, data types by columns: narrow enough for a page."""
    built = matrix.build(records)
    dtypes = [d for d, _ in built.dtypes]
    rows = []
    for row in built.rows:
        for level in sorted({level for (_, level) in row.cells}, key=matrix.level_key):
            rows.append([text(row.op), text(level)] + [cell(row.cells.get((d, level))) for d in dtypes])
    return table(rows, ["operator", "FL"] + [text(d) for d in dtypes])


def legend(records) -> str:
    present = {r["status"] for r in records}
    lines = [f"- {statuses.icon(s)} **{text(statuses.label(s))}**: {text(statuses.BY_NAME[s].meaning)}"
             for s in statuses.MOST_SEVERE_FIRST if s in present]
    lines += [f"- **{text(term)}**: {text(meaning)}" for term, meaning in TERMS.items()]
    return "\n".join(lines)


def full_path(path) -> Path:
    """The whole report, beside the one that fits a comment: F.md -> F.full.md."""
    path = Path(path)
    return path.with_name(f"{path.stem}.full{path.suffix}" if path.suffix else f"{path.name}.full.md")


def fitted(path, whole: str) -> list:
    """[(path, text)] of a diff or a comparison: the whole at path where it fits a pull request
    comment; else at path its first lines under COMMENT_LIMIT (regressions come first) with a link to
    the whole, written beside it (full_path)."""
    path = Path(path)
    if len(whole) < COMMENT_LIMIT:
        return [(path, whole)]
    full = full_path(path)
    note = (f"\n\n**Cut short here to fit a pull request comment: the whole is in "
            f"[{text(full.name)}](<{full.name.replace('>', '%3E')}>).**\n")
    return [(path, whole[:whole.rindex("\n", 0, COMMENT_LIMIT - len(note))] + note), (full, whole)]


def files(path, header: dict, records: list, footer: dict | None) -> list:
    """[(path, text)]: at path the report that fits a pull request comment, linking to the whole
    report beside it (full_path)."""
    full = full_path(path)
    return [(path, report(header, records, footer, full_name=full.name)), (full, report(header, records, footer))]


def report(header: dict, records: list, footer: dict | None, full_name: str | None = None) -> str:
    """The whole report; with full_name, one under COMMENT_LIMIT characters that links to the
    whole one (named full_name) for what it leaves out."""
    conformant, verdict = matrix.verdict(records)
    top = ["# DirectML conformance summary", "", meta_table(header, footer, records), "",
           f"**{'✅' if conformant else '❌'} {text(verdict)}**", ""]
    if full_name:
        top += [f"The whole report (the matrix by feature level, every failing case, every rerun command): "
                f"[{text(full_name)}](<{full_name.replace('>', '%3E')}>).", ""]
    operators = operator_table(records)
    if full_name and len(operators) > COMMENT_LIMIT // 3:
        operators = ("Operators with failing cases (every operator is in the whole report):\n\n"
                     + operator_table(records, only={r["op"] for r in matrix.failing(records)},
                                      limit=COMMENT_LIMIT // 3))
    top += ["## Operators", "", legend(records), "", operators, ""]
    tail = disagreement_section(records, listed=not full_name)
    groups = details.failure_groups(records)
    ids = details.known_ids(records, header)
    budget = COMMENT_LIMIT - 600 - len("\n".join(top + tail)) if full_name else None
    body, commands = group_sections(groups, header, ids, budget)
    if body:
        failing = sum(len(g.records) for g in groups)
        body = [f"## Failing cases: {failing} in {len(groups)} groups", "",
                "Grouped by status, operator and data type. Each group shows its first case and that case's "
                "worst elements: decimal, and the bits in the data type (a NaN's payload, a signed zero, "
                "a flushed denormal).", ""] + body
        if commands:
            body += ["<details><summary>Rerun each group's first case alone</summary>", "",
                     fenced("\n".join(commands), "sh"), "", "</details>", ""]
    if not full_name:
        return "\n".join(top + body + whole_sections(records, header, ids) + tail)
    whole = "\n".join(top + body + tail)
    if len(whole) >= COMMENT_LIMIT:  # only where the parts above outgrew their shares
        whole = whole[:whole.rindex("\n", 0, COMMENT_LIMIT - 200)] + "\n\n**Cut short here: the rest is in the whole report.**\n"
    return whole


def group_sections(groups, header, ids, budget=None) -> tuple:
    """(lines, rerun commands) of the groups that fit in budget characters (None: all)."""
    lines, commands, used = [], [], 0
    for number, group in enumerate(groups):
        part, command = group_section(group), details.rerun_command(group.first, header, ids)
        cost = len("\n".join(part)) + len(command) + 2
        if budget is not None and used + cost > budget:
            left = groups[number:]
            lines += [f"**{len(left)} more groups ({sum(len(g.records) for g in left)} cases) are in the whole "
                      "report.**", ""]
            break
        lines += part
        commands.append(command)
        used += cost
    return lines, commands


def group_section(group) -> list:
    first = group.first
    icon = statuses.icon(group.status)
    lines = [f"### {icon} {text(statuses.label(group.status))}: {text(group.op)} {text(group.dtype)} "
             f"({len(group.records)} case{'s' if len(group.records) != 1 else ''})", "",
             f"{code(first['id'])}: "
             + text(judgement(first) or _first_line(first.get("message"))[:details.MESSAGE_SHOWN]), ""]
    worst = details.deciding_worst(first)[:EXAMPLE_ELEMENTS]
    if worst:
        rows = [[text(details.element_name(item))] + [text(value) + (f" {code(bits)}" if bits else "")
                                             for _, value, bits in details.element_values(item)]
                + [text("NaN mismatch" if item.get("ulp") == "nan" else item.get("ulp", "-"))] for item in worst]
        lines += [table(rows, ["element", "input", "expected", "actual", "ULP"], right=(1, 2, 3, 4)), ""]
    others = group.records[1:]
    if others:
        named = ", ".join(code(r["id"]) for r in others[:EXAMPLE_IDS])
        more = f" and {len(others) - EXAMPLE_IDS} more" if len(others) > EXAMPLE_IDS else ""
        lines += [f"Also {named}{more}.", ""]
    return lines


def whole_sections(records, header, ids) -> list:
    """What only the whole report holds: the matrix by feature level, every failing case and its rerun."""
    parts = ["## Compatibility matrix", "",
             "Cases by operator, the feature level that first requires them, and data type: "
             + ", ".join(f"{statuses.icon(s)} {statuses.label(s)}" for s in statuses.MOST_SEVERE_FIRST) + ".", "",
             matrix_table(records), ""]
    failing = matrix.failing(records)
    if failing:
        parts += [f"## Every failing case ({len(failing)})", "",
                  table([[code(r["id"]), text(statuses.label(r["status"])),
                          text(r.get("max_ulp") if r.get("max_ulp") is not None else "-"),
                          text(judgement(r) or _first_line(r.get("message"))[:details.MESSAGE_SHOWN])]
                         for r in failing],
                        ["case", "status", "max ULP", "judgement (the other model where it differs)"]), "",
                  "<details><summary>Rerun a failing case alone</summary>", "",
                  fenced("\n".join(details.rerun_command(r, header, ids) for r in failing), "sh"), "",
                  "</details>", ""]
    return parts


def disagreement_section(records, listed=True) -> list:
    """The cases whose two tolerance models disagree: exact to N ULP is one story, within what
    Direct3D allows is another. listed: every case (else a count, for the whole report to list)."""
    differing = disagreements(records)
    if not differing:
        return []
    parts = [f"## Where the tolerance models disagree ({len(differing)})", "",
             "Each case is judged by both models; the status is the deciding model's.", ""]
    if not listed:
        by_op = sorted(Counter(r["op"] for r in differing).items())
        more = f" and {len(by_op) - EXAMPLE_OPERATORS} more operators" if len(by_op) > EXAMPLE_OPERATORS else ""
        return parts + [", ".join(f"{text(op)} {n}" for op, n in by_op[:EXAMPLE_OPERATORS]) + more
                        + ". Each case is listed in the whole report.", ""]
    rows = [[code(r["id"]), text(statuses.label(r["status"])), text(judgement(r))] for r in differing]
    return parts + [table(rows, ["case", "status", "judgement"]), ""]


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
