"""The one-screen summary printed at the end of a run (and by `conformance report`), fitted to the
terminal's width (shutil.get_terminal_size: COLUMNS, else the terminal, else 80 columns).

The operator table takes the widest layout that fits: every status under its full name; short
headings; then failing and skipped statuses added up. An operator name wider than its column
goes on a line of its own, its figures on the next. A case id is never broken."""
import shutil
import textwrap

from conformance import statuses
from conformance.judge.verdicts import CONFORMS_UP_TO, MODELS_DIFFER, OFF_EXACT, TERMS, judgement, operator_rows
from reports import details
from reports.matrix import operator_columns

GROUPS_SHOWN = 10  # groups of failing cases listed; the reports hold every one
NAME_MIN = 30  # the narrowest operator column before the next layout is tried
SHORT = {"conforms_up_to": "conforms", "models_disagree": "differ", statuses.UNSUPPORTED_REQUIRED: "unsup-req",
         statuses.UNSUPPORTED: "unsup", statuses.NOT_REACHABLE: "unreach", statuses.CPU_FALLBACK: "cpu-fb"}
_TERM_KEYS = {CONFORMS_UP_TO: "conforms_up_to", MODELS_DIFFER: "models_disagree"}
FAILING, SKIPPED = "other", "skip"  # the statuses added up, in the narrowest layout


def width() -> int:
    return shutil.get_terminal_size().columns


def _labels(names) -> str:
    return ", ".join(statuses.label(s) for s in sorted(names, key=statuses.rank))


def _layouts(rows) -> list:
    """[(columns [(key, heading)], rows, legend [(heading, meaning)])], widest first."""
    full = operator_columns(rows, extra=[("models_disagree", MODELS_DIFFER)])
    short = [(key, SHORT.get(key, title)) for key, title in full]
    legend = [(SHORT[key], title) for key, title in full if key in SHORT]
    summed = [{**row, FAILING: sum(row[s] for s in statuses.FAILING - {statuses.FAIL}),
               SKIPPED: sum(row[s] for s in statuses.SKIPPED)} for row in rows]
    first, last = ("operator", "cases", statuses.PASS, statuses.FAIL), ("conforms_up_to", "models_disagree")
    grouped = ([(key, title) for key, title in short if key in first] + [(FAILING, FAILING), (SKIPPED, SKIPPED)]
               + [(key, title) for key, title in short if key in last])
    grouped_legend = [(FAILING, "the other failing statuses: " + _labels(statuses.FAILING - {statuses.FAIL})),
                      (SKIPPED, "not run as a test: " + _labels(statuses.SKIPPED))]
    grouped_legend += [(short_title, title) for short_title, title in legend if short_title in dict(grouped).values()]
    return [(full, rows, []), (short, rows, legend), (grouped, summed, grouped_legend)]


def table(records, columns: int | None = None) -> tuple:
    """(lines of the operator table fitted to columns, legend lines)."""
    columns = columns or width()
    rows = operator_rows(records)
    longest = max((len(row["operator"]) for row in rows), default=8)
    layouts = _layouts(rows)
    for number, (used, cells, legend) in enumerate(layouts):
        figures = [(key, title, max([len(title)] + [len(str(row[key])) for row in cells])) for key, title in used[1:]]
        rest = sum(w + 2 for _, _, w in figures)
        wanted = longest if number == 0 else min(longest, NAME_MIN)
        if rest + wanted <= columns or number == len(layouts) - 1:
            break
    name = max(min(longest, columns - rest), len("operator"))
    lines = ["operator".ljust(name) + "".join("  " + title.rjust(w) for _, title, w in figures),
             "-" * name + "".join("  " + "-" * w for _, _, w in figures)]
    for row in cells:
        values = "".join("  " + str(row[key]).rjust(w) for key, _, w in figures)
        if len(row["operator"]) > name:
            lines += [row["operator"], " " * name + values]
        else:
            lines.append(row["operator"].ljust(name) + values)
    shown = {title for _, title, _ in figures}
    abbreviations = [f"{short} = {meaning}" for short, meaning in legend if short in shown]
    notes = ["; ".join(abbreviations) + "."] if abbreviations else []
    notes += [f"{term}: {TERMS[term]}" for term in (CONFORMS_UP_TO, MODELS_DIFFER)
              if term in shown or SHORT[_TERM_KEYS[term]] in shown]
    return lines, notes


def failing_lines(records, limit=GROUPS_SHOWN, columns: int | None = None) -> list:
    """The failing cases by status, operator and data type: a line for each group, its first case
    and what was wrong with it."""
    columns = columns or width()
    groups = details.failure_groups(records)
    lines = []
    for group in groups[:limit]:
        first = group.first
        count = len(group.records)
        lines += textwrap.wrap(f"{statuses.label(group.status)}: {group.op} {group.dtype}, {count} case"
                               f"{'s' if count != 1 else ''}, e.g.", columns, initial_indent="  ",
                               subsequent_indent="    ")
        lines.append("    " + first["id"])  # whole, to copy
        why = judgement(first) if first["status"] == statuses.FAIL else \
            (first.get("message") or "").split("\n")[0][:details.MESSAGE_SHOWN]
        lines += textwrap.wrap(why, columns, initial_indent="    ", subsequent_indent="      ")
    if len(groups) > limit:
        left = groups[limit:]
        lines += textwrap.wrap(f"... and {len(left)} more groups ({sum(len(g.records) for g in left)} cases): "
                               "every one is in the HTML and markdown reports (conformance report RESULTS "
                               "--html F --markdown F)", columns, initial_indent="  ", subsequent_indent="    ")
    return lines


def text(header: dict, records, footer: dict, columns: int | None = None) -> str:
    columns = columns or width()
    lines = textwrap.wrap(
        f"backend {header.get('backend')} ({header.get('provider')}, {header.get('device')}), "
        f"onnxruntime {header.get('onnxruntime', '-')}, feature level {header.get('feature_level')}, "
        f"seed {header.get('seed')}, tolerance model {header.get('tolerance_model', 'ulp')}", columns,
        subsequent_indent="  ")
    rows, notes = table(records, columns)
    lines += rows
    failing = failing_lines(records, columns=columns)
    if failing:
        groups = details.failure_groups(records)
        lines += [""] + textwrap.wrap(f"failing cases ({sum(len(g.records) for g in groups)}, in {len(groups)} "
                                      "groups by status, operator and data type):", columns) + failing
        if any(OFF_EXACT in judgement(g.first) for g in groups[:GROUPS_SHOWN]):
            notes.append(f"{OFF_EXACT}: {TERMS[OFF_EXACT]}")
    if notes:
        lines.append("")
        for note in notes:
            lines += textwrap.wrap(note, columns, subsequent_indent="  ", break_on_hyphens=False)
    if cut := details.partly_verified(records):
        lines += [""] + textwrap.wrap(f"partly verified (interrupted): {cut}", columns, subsequent_indent="  ")
    lines.append("")
    lines.append(f"{plural(len(records), 'case')} in {footer.get('seconds', 0):.1f} s, "
                 f"{plural(footer.get('sessions_created', 0), 'session')} created"
                 + (" -- INTERRUPTED" if footer.get("interrupted") else ""))
    return "\n".join(lines)


def plural(count: int, noun: str) -> str:
    """'1 case', '2 cases'."""
    return f"{count} {noun}" + ("" if count == 1 else "s")
