"""Every case whose verdict changed: between two stored runs, or between two drivers (or DirectML
releases) of one device. What a change is comes from reports.diff.classify, as `conformance diff`
says it: a status more severe is a regression, less severe a fix, another of the same severity is
other; a max ULP that moved under the same status is no change of verdict.

Between drivers, each side is every stored run on the device with that driver; a case's verdict on
a side is its record in the latest of those runs (by start time) that holds it, compared backend by
backend: one case through two backends is two cases.
"""
from dataclasses import dataclass, field

from conformance.errors import BadInput
from conformance.store import runs as stored
from reports import diff

REGRESSION, FIX, OTHER = "regression", "fix", "other"
KINDS = (REGRESSION, FIX, OTHER)  # in the order they are listed
_KIND = {diff.REGRESSION: REGRESSION, diff.IMPROVEMENT: FIX, diff.STATUS_CHANGE: OTHER}
SIDES = ("driver", "directml", "dml_release")  # the runs' columns a device's two sides may differ in

# SQL's join in lower case: tests/test_registry.py's name scan reads JOIN as the operator
_SELECT = ("SELECT r.backend, c.case_id, c.op, c.dtype, c.feature_level, c.status, c.max_ulp, r.run_id "
           "FROM records c join runs r ON r.run_id = c.run_id WHERE {where} "
           "ORDER BY COALESCE(r.start, ''), r.added, r.run_id, c.position")


@dataclass(frozen=True)
class Change:
    kind: str  # REGRESSION, FIX or OTHER
    case_id: str
    op: str
    dtype: str | None
    feature_level: str | None
    backend: str | None
    before: str  # status
    after: str
    ulp_before: float | None
    ulp_after: float | None
    run_before: str  # run id
    run_after: str


@dataclass
class Changes:
    before: str  # what the sides are, in words
    after: str
    changes: list = field(default_factory=list)  # [Change], regressions first
    same: int = 0  # cases of both sides with the same verdict
    only_before: int = 0  # cases of one side only: not compared
    only_after: int = 0

    def of(self, kind: str) -> list:
        return [change for change in self.changes if change.kind == kind]

    def summary(self) -> str:
        counts = ", ".join(f"{len(self.of(kind))} {kind}" for kind in KINDS)
        return (f"{counts}; {self.same} case(s) with the same verdict; {self.only_before} only before, "
                f"{self.only_after} only after")


def between_runs(db, a, b) -> Changes:
    """a, b: run names (stored.find)."""
    run_a, run_b = stored.find(db, a), stored.find(db, b)
    before = _side(db, "r.run_id = ?", (run_a.run_id,), by_backend=False)
    after = _side(db, "r.run_id = ?", (run_b.run_id,), by_backend=False)
    return _compare(before, after, _name(run_a), _name(run_b))


def between(db, device: str, column: str, a: str, b: str) -> Changes:
    """The runs on device with column (one of SIDES) a, against those with b."""
    if column not in SIDES:
        raise ValueError(f"{column}: not one of {SIDES}")
    if not device:
        raise BadInput(f"changes by --{column.replace('_', '-')} need --device (the device whose two "
                       f"{column.replace('_', ' ')}s to compare)")
    where, parameters = stored.device_filter(device, "r.device")
    sides = []
    for value in (a, b):
        side = _side(db, f"{where} AND r.{column} = ?", (*parameters, value), by_backend=True)
        if not side:
            stored.check_not_empty(db)
            raise stored.UnknownRun(f"no stored run on a device matching {device!r} has {column} {value!r} "
                                    f"(conformance store query runs --device {device!r} lists them)")
        sides.append(side)
    return _compare(*sides, f"{column} {a}", f"{column} {b}")


def timeline(db, device=None) -> list:
    """[(Run, Changes)] of every stored run on a device matching device, oldest first: each case of the
    run against its latest verdict in an earlier run of the same device and backend (a case the device
    and backend never ran before counts in only_after), so a small run between two full ones hides nothing."""
    stored.check_not_empty(db)
    runs = stored.select(db, *stored.device_filter(device))
    where, parameters = stored.device_filter(device, "r.device")
    by_run = {}
    for row in db.rows(_SELECT.format(where=where or "1 = 1"), parameters):
        by_run.setdefault(row[7], {})[(None, row[1])] = row
    seen, steps = {}, []  # (device, backend) -> {(None, case id): its latest row}
    for run in runs:
        after = by_run.get(run.run_id, {})
        earlier = seen.setdefault((run.device, run.backend), {})
        before = {key: earlier[key] for key in after if key in earlier}
        steps.append((run, _compare(before, after, f"earlier runs of {run.backend} on {run.device}", _name(run))))
        earlier.update(after)
    return steps


def _side(db, where, parameters, by_backend: bool) -> dict:
    """{(backend or None, case id): row} of the latest record of each case among the runs where selects."""
    latest = {}
    for row in db.rows(_SELECT.format(where=where), parameters):
        latest[(row[0] if by_backend else None, row[1])] = row
    return latest


def _compare(before: dict, after: dict, name_before: str, name_after: str) -> Changes:
    result = Changes(name_before, name_after)
    for key, old in before.items():
        new = after.get(key)
        if new is None:
            result.only_before += 1
            continue
        kind = _KIND.get(diff.classify({"status": old[5], "max_ulp": old[6]}, {"status": new[5], "max_ulp": new[6]}))
        if kind is None:
            result.same += 1
            continue
        backend, case_id, op, dtype, level = new[:5]
        result.changes.append(Change(kind, case_id, op, dtype, level, backend, old[5], new[5], old[6], new[6],
                                     old[7], new[7]))
    result.only_after = sum(1 for key in after if key not in before)
    result.changes.sort(key=lambda c: (KINDS.index(c.kind), c.op, str(c.backend or ""), c.case_id))
    return result


def _name(run: stored.Run) -> str:
    return f"run {run.short} ({run.backend} on {run.device}, {run.file})"
