"""Per-operator verdicts from case records: counts and the highest conforming feature level."""
from collections import Counter, defaultdict

from conformance import featurelevels, specs, statuses


def by_operator(records) -> dict:
    grouped = defaultdict(list)
    for record in records:
        grouped[record["op"]].append(record)
    return dict(grouped)


def highest_conforming_level(records, op: str) -> str | None:
    """The highest level L of the operator's tables such that every case the page requires
    at L or below passed (none failed, at least one passed). None: not even the lowest."""
    try:
        levels = sorted({t.level for t in specs.get(op).tables}, key=featurelevels.index)
    except KeyError:
        levels = sorted({r["feature_level"] for r in records}, key=featurelevels.index)
    best = None
    for level in levels:
        needed = [r for r in records if featurelevels.index(r["feature_level"]) <= featurelevels.index(level)]
        if any(r["status"] in statuses.FAILING for r in needed):
            break
        if not any(r["status"] == statuses.PASS for r in needed):
            break
        best = level
    return best


def operator_rows(records) -> list:
    rows = []
    for op, items in sorted(by_operator(records).items()):
        count = Counter(r["status"] for r in items)
        level = highest_conforming_level(items, op)
        rows.append({"operator": op, "cases": len(items), **{s: count.get(s, 0) for s in statuses.ALL},
                     "conforms_up_to": level or "none"})
    return rows
