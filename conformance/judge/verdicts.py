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
        ratio = ", off an exact value"
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
