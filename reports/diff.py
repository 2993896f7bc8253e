"""What changed between two runs of the same cases: two driver versions, two providers, two days.

A case regresses when its status gets more severe (pass -> fail, fail -> crash, not reachable ->
error ...). Cases whose status is the same but whose max ULP moved are listed apart; so are
cases present in one run only. Regressions come first. The comparison fails on a regression, and
on cases that B lacks unless asked otherwise (allow_missing: B ran a smaller selection on purpose).
"""
from dataclasses import dataclass, field

from conformance import statuses
from conformance.run.results import partial, read_results

# Kinds of change, in the order they are listed.
REGRESSION, NEW_FAILURE, ULP_WORSE, STATUS_CHANGE, MISSING, NEW, ULP_BETTER, IMPROVEMENT = (
    "regression", "new failing case", "max ULP up", "status changed", "missing in B", "new in B",
    "max ULP down", "improvement")
ORDER = (REGRESSION, NEW_FAILURE, ULP_WORSE, STATUS_CHANGE, MISSING, NEW, ULP_BETTER, IMPROVEMENT)
MEANING = {
    REGRESSION: "the status got worse (e.g. pass -> fail, fail -> crash)",
    NEW_FAILURE: "a case only B ran, failing",
    ULP_WORSE: "same status, larger max ULP error",
    STATUS_CHANGE: "a different status of the same severity (e.g. pass -> not reachable)",
    MISSING: "a case only A ran (a smaller selection, or B stopped early)",
    NEW: "a case only B ran, not failing",
    ULP_BETTER: "same status, smaller max ULP error",
    IMPROVEMENT: "the status got better (e.g. fail -> pass)",
}


@dataclass
class Change:
    kind: str
    id: str
    op: str
    before: dict | None  # A's record
    after: dict | None  # B's record

    @property
    def status_before(self):
        return self.before["status"] if self.before else None

    @property
    def status_after(self):
        return self.after["status"] if self.after else None

    @property
    def ulp_before(self):
        return self.before.get("max_ulp") if self.before else None

    @property
    def ulp_after(self):
        return self.after.get("max_ulp") if self.after else None

    def sort_key(self):
        jump = statuses.severity(self.status_after or "pass") - statuses.severity(self.status_before or "pass")
        growth = (self.ulp_after or 0) - (self.ulp_before or 0)
        magnitude = -abs(jump) if self.kind in (REGRESSION, IMPROVEMENT) else -abs(growth)
        return (ORDER.index(self.kind), magnitude, self.op, self.id)


@dataclass
class RunDiff:
    header_a: dict
    header_b: dict
    footer_a: dict | None
    footer_b: dict | None
    changes: list = field(default_factory=list)
    unchanged: int = 0
    name_a: str = "A"
    name_b: str = "B"
    allow_missing: bool = False

    @property
    def regressions(self) -> list:
        return [c for c in self.changes if c.kind == REGRESSION]

    @property
    def missing(self) -> list:
        return [c for c in self.changes if c.kind == MISSING]

    @property
    def failed(self) -> bool:
        return bool(self.regressions or (self.missing and not self.allow_missing))

    def warnings(self) -> list:
        """A line for each run whose results are partial (interrupted, or no footer), and one if the
        two runs' statuses were decided by different tolerance models."""
        runs = (("A", self.name_a, self.header_a, self.footer_a), ("B", self.name_b, self.header_b, self.footer_b))
        notes = [f"{label} ({name}) is partial: {reason}" for label, name, header, footer in runs
                 if (reason := partial(header, footer))]
        models = [(header or {}).get("tolerance_model", "ulp") for _, _, header, _ in runs]
        if models[0] != models[1]:
            notes.append(f"A's statuses were decided by the {models[0]} tolerance model and B's by {models[1]}: "
                         "a status change may come from the model, not the device")
        return notes

    def verdict(self) -> str:
        """Why the comparison fails, or that it does not."""
        text = f"{len(self.regressions)} regression(s)"
        if self.missing:
            text += f", {len(self.missing)} case(s) missing in B" + (" (allowed)" if self.allow_missing else "")
        return text + (": the comparison fails" if self.failed else "")

    def by_kind(self) -> list:
        """[(kind, [Change])] in ORDER, kinds with no change left out."""
        return [(kind, items) for kind in ORDER if (items := [c for c in self.changes if c.kind == kind])]

    def counts(self) -> dict:
        return {kind: len(items) for kind, items in self.by_kind()}

    def summary(self) -> str:
        counts = self.counts()
        if not counts:
            return f"no changes ({self.unchanged} cases with the same status and max ULP)"
        parts = [f"{n} {kind}" for kind, n in counts.items()]
        return ", ".join(parts) + f"; {self.unchanged} unchanged"


def classify(before: dict | None, after: dict | None) -> str | None:
    if before is None:
        return NEW_FAILURE if after["status"] in statuses.FAILING else NEW
    if after is None:
        return MISSING
    old, new = before["status"], after["status"]
    if statuses.severity(new) > statuses.severity(old):
        return REGRESSION
    if statuses.severity(new) < statuses.severity(old):
        return IMPROVEMENT
    if old != new:
        return STATUS_CHANGE
    ulp_old, ulp_new = before.get("max_ulp"), after.get("max_ulp")
    if ulp_old is not None and ulp_new is not None and ulp_old != ulp_new:
        return ULP_WORSE if ulp_new > ulp_old else ULP_BETTER
    return None


def diff_records(header_a, records_a, footer_a, header_b, records_b, footer_b, name_a="A", name_b="B",
                 allow_missing=False):
    a = {r["id"]: r for r in records_a}
    b = {r["id"]: r for r in records_b}
    result = RunDiff(header_a, header_b, footer_a, footer_b, name_a=name_a, name_b=name_b,
                     allow_missing=allow_missing)
    for case_id in list(a) + [i for i in b if i not in a]:
        before, after = a.get(case_id), b.get(case_id)
        kind = classify(before, after)
        if kind is None:
            result.unchanged += 1
            continue
        result.changes.append(Change(kind, case_id, (before or after)["op"], before, after))
    result.changes.sort(key=Change.sort_key)
    return result


def diff_files(path_a, path_b, allow_missing=False) -> RunDiff:
    header_a, records_a, footer_a = read_results(path_a)
    header_b, records_b, footer_b = read_results(path_b)
    return diff_records(header_a, records_a, footer_a, header_b, records_b, footer_b,
                        name_a=str(path_a), name_b=str(path_b), allow_missing=allow_missing)
