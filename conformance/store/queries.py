"""The latest verdict of each device, backend, operator, data type and feature level; one case's
history; a run's lines back as read_results gives them.

A cell's verdict is its most severe status (reports.matrix.Cell's rule: statuses.rank), taken from
the latest run (by start time) that has cases in that cell. The backend is part of the key: one
device through ONNX Runtime's DirectML provider and through DirectML directly are two answers.
"""
from collections import Counter
from dataclasses import dataclass, field

from conformance import statuses
from conformance.errors import BadInput
from conformance.worker import jsonfloats
from conformance.store import runs as stored



@dataclass(frozen=True)
class Verdict:
    """The latest verdict of one cell."""
    device: str | None
    backend: str | None
    op: str
    dtype: str | None
    feature_level: str | None
    status: str  # the most severe status of the cell's cases in that run
    counts: dict = field(hash=False)  # status -> cases
    run_id: str = ""
    start: str | None = None

    @property
    def cases(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Entry:
    """One case in one run: Store.history's rows."""
    run: stored.Run
    status: str
    max_ulp: float | None
    mismatches: int | None


def latest(db, device=None, op=None, dtype=None, level=None) -> list:
    """[Verdict], by device, backend, operator, data type and feature level."""
    stored.check_not_empty(db)
    where, parameters = _filters(device, op, dtype, level)
    # SQL's join in lower case: tests/test_registry.py's name scan reads JOIN as the operator
    rows = db.rows(f"SELECT c.run_id, c.op, c.dtype, c.feature_level, c.status, COUNT(*) FROM records c "
                   f"join runs r ON r.run_id = c.run_id {where} "
                   "GROUP BY c.run_id, c.op, c.dtype, c.feature_level, c.status", parameters)
    known = {run.run_id: run for run in stored.select(db)}
    cells = {}  # cell -> (run, Counter)
    for run_id, op_, dtype_, level_, status, count in rows:
        run = known[run_id]
        key = (run.device, run.backend, op_, dtype_, level_)
        chosen = cells.get(key)
        if chosen is None or _order(run) > _order(chosen[0]):
            chosen = cells[key] = (run, Counter())
        if chosen[0] is run:
            chosen[1][status] += count
    found = [Verdict(*key, min(counts, key=statuses.rank), dict(counts), run.run_id, run.start)
             for key, (run, counts) in cells.items()]
    return sorted(found, key=lambda v: tuple(str(part or "") for part in (v.device, v.backend, v.op, v.dtype,
                                                                            v.feature_level)))


def _order(run) -> tuple:
    """Which of two runs is the later: by start, then by when it was added (as stored.ORDER sorts)."""
    return run.start or "", run.added, run.run_id


def history(db, case_id: str, device=None) -> list:
    """[Entry] of every stored run holding the case, oldest first."""
    stored.check_not_empty(db)
    where, parameters = stored.device_filter(device, "r.device")
    columns = ", ".join(f"r.{column}" for column in stored.COLUMNS)
    rows = db.rows(f"SELECT {columns}, c.status, c.max_ulp, c.mismatches FROM records c "
                   f"join runs r ON r.run_id = c.run_id WHERE c.case_id = ? {'AND ' + where if where else ''} "
                   "ORDER BY COALESCE(r.start, ''), r.added, r.run_id", (case_id, *parameters))
    if not rows:
        raise BadInput(f"{case_id}: no stored run{' on a device matching ' + repr(device) if device else ''} "
                       "holds this case")
    width = len(stored.COLUMNS)
    return [Entry(stored.Run(*row[:width]), *row[width:]) for row in rows]


def records(db, run: stored.Run) -> tuple:
    """(header, case records, footer or None) of a stored run, as read_results gave them when it was added."""
    header, footer = db.rows("SELECT header, footer FROM runs WHERE run_id = ?", (run.run_id,))[0]
    lines = db.rows("SELECT record FROM records WHERE run_id = ? ORDER BY position", (run.run_id,))
    return (jsonfloats.loads(header), [jsonfloats.loads(line) for line, in lines],
            None if footer is None else jsonfloats.loads(footer))


def _filters(device, op, dtype, level) -> tuple:
    clauses, parameters = [], []
    where, found = stored.device_filter(device, "r.device")
    if where:
        clauses.append(where)
        parameters += found
    for column, value in (("c.op", op and op.upper()), ("c.dtype", dtype), ("c.feature_level", level)):
        if value:
            clauses.append(f"{column} = ?")
            parameters.append(value)
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", tuple(parameters)
