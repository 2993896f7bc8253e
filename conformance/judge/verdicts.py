"""Per-operator verdicts from case records: counts and the highest conforming feature level."""
from collections import Counter, defaultdict

from conformance import featurelevels, specs, statuses

OFF_EXACT = "off an exact value"
MODELS_DIFFER = "other model differs"
CONFORMS_UP_TO = "conforms up to FL"
# What the reports' shorthand means, said once for every report's legend.
TERMS = {
    CONFORMS_UP_TO: "the highest feature level at which every case the level requires passed (and at least one "
                    "ran); unsupported-but-not-required and not-reachable cases do not count against it; none: "
                    "not even the lowest level",
    MODELS_DIFFER: "cases whose two tolerance models give different verdicts: d3d (what the Direct3D precision "
                   "rules allow the operator's formula) and ulp (WebNN's ULP tolerance against the exactly "
                   "rounded value); the status is the deciding model's",
    OFF_EXACT: "an element missed a value the Direct3D rules require exactly (an interval of one value: an "
               "integer result, a clamp's bound, a special value such as f(NaN) = NaN, or a NaN or infinity "
               "where a number is due), so how far off it is has no measure in half-widths",
}


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
                     "conforms_up_to": level or "none", "models_disagree": len(disagreements(items))})
    return rows


def deciding_model(record) -> str:
    """The tolerance model that decided a record's status (records before the d3d model: ulp)."""
    return record.get("tolerance_model") or "ulp"


def other_verdict(record):
    """(model, verdict) of the model that did not decide, where it disagrees; else None."""
    verdicts = record.get("verdicts") or {}
    decided = deciding_model(record)
    for model, verdict in verdicts.items():
        if model != decided and verdict != verdicts.get(decided):
            return model, verdict
    return None


def d3d_text(record) -> str:
    """'3 of 120 outside the Direct3D rules (max 4.1x the interval's half-width), 2 lowering-defined'."""
    figures = record.get("d3d")
    if not figures:
        return "-"
    ratio = figures.get("max_ratio")
    if ratio is None or not figures.get("failed"):
        ratio = ""
    elif isinstance(ratio, str):  # 'inf': off an exact (zero-width) interval
        ratio = f", {OFF_EXACT}"
    else:
        ratio = f", worst {ratio:.3g}x its interval's half-width from the middle"
    lowering = f", {figures['lowering_defined']} lowering-defined" if figures.get("lowering_defined") else ""
    return f"{figures['failed']} of {record.get('elements', 0)} outside the Direct3D rules{ratio}{lowering}"


def ulp_text(record) -> str:
    """'3 of 120 beyond 18 ULP (max 19 ULP)'."""
    if record.get("max_ulp") is None:
        return "-"
    return (f"{record.get('mismatches', 0)} of {record.get('elements', 0)} beyond {record.get('tolerance')} ULP "
            f"(max {record['max_ulp']} ULP)")


def judgement(record) -> str:
    """The deciding model's figures, and the other model's verdict where it differs:
    'd3d: 0 of 31 outside the Direct3D rules ...; ulp would say fail: 2 of 31 beyond 18 ULP (max 808 ULP)'."""
    if not record.get("verdicts"):
        return ""
    decided = deciding_model(record)
    text = {"d3d": d3d_text, "ulp": ulp_text}
    line = f"{decided}: {text[decided](record)}"
    other = other_verdict(record)
    if other:
        model, verdict = other
        line += f"; {model} would say {verdict}: {text[model](record)}"
    return line


def disagreements(records) -> list:
    """Records whose two models give different verdicts."""
    return [r for r in records if other_verdict(r)]
