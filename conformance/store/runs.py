"""The stored runs: Run (a row of the runs table, without its header and footer JSON), and a run
found by its name: a prefix of its id, or a results file (whose identity is computed, so that a gzip
or plain copy of the stored file names it too)."""
from dataclasses import dataclass, fields
from pathlib import Path

from conformance.errors import BadInput
from conformance.run.results import read_results
from conformance.store import identity

MIN_PREFIX = 4  # hex digits of the shortest id prefix accepted


class UnknownRun(BadInput):
    """A run name that names no stored run, or several."""


class EmptyStore(BadInput):
    """A query of a store that holds no run."""


@dataclass(frozen=True)
class Run:
    run_id: str
    file: str
    added: str
    start: str | None
    backend: str | None
    device: str | None
    adapter: str | None
    driver: str | None
    directml: str | None
    directml_sha256: str | None
    dml_release: str | None
    onnxruntime: str | None
    harness: str | None
    feature_level: str | None
    tolerance_model: str | None
    cases: int
    failing: int
    partial: str | None

    @property
    def short(self) -> str:
        return self.run_id[:identity.SHORT]

    def as_dict(self) -> dict:
        return {field.name: getattr(self, field.name) for field in fields(self)}


COLUMNS = tuple(field.name for field in fields(Run))
ORDER = "ORDER BY COALESCE(start, ''), added, run_id"  # oldest first; a run without a start first (either database)


def select(db, where: str = "", parameters=()) -> list:
    """[Run] of the runs that match where (SQL over the runs table's columns), oldest first."""
    rows = db.rows(f"SELECT {', '.join(COLUMNS)} FROM runs {('WHERE ' + where) if where else ''} {ORDER}",
                   parameters)
    return [Run(*row) for row in rows]


def by_id(db, run_id: str) -> Run | None:
    found = select(db, "run_id = ?", (run_id,))
    return found[0] if found else None


def find(db, name) -> Run:
    """The run a name names: a results file (by the identity of what it holds), or a prefix of a run id."""
    name = str(name)
    if Path(name).is_file():
        header, records, _ = read_results(name)
        run = by_id(db, identity.lines(header, records)[0])
        if run is None:
            raise UnknownRun(f"{name}: this run is not in store {db.location} (conformance store add {name} adds it)")
        return run
    prefix = name.lower()
    if len(prefix) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in prefix):
        raise UnknownRun(f"{name}: no such results file, nor a run id (at least {MIN_PREFIX} hex digits; "
                         "conformance store query runs lists them)")
    found = select(db, "run_id >= ? AND run_id < ?", (prefix, prefix + "g"))  # a prefix, as a range both read alike
    if not found:
        check_not_empty(db)
        raise UnknownRun(f"{name}: no stored run has an id beginning so (conformance store query runs lists them)")
    if len(found) > 1:
        raise UnknownRun(f"{name}: names {len(found)} runs ({', '.join(run.short for run in found[:5])}"
                         f"{' ...' if len(found) > 5 else ''}): give more of the id")
    return found[0]


def check_not_empty(db):
    if not db.rows("SELECT run_id FROM runs LIMIT 1"):
        raise EmptyStore(f"store {db.location} holds no runs (conformance store add RESULTS... adds them)")


def device_filter(device: str | None, column: str = "device") -> tuple:
    """(SQL, parameters) matching runs whose device contains device, whatever the case ('' where None)."""
    if not device:
        return "", ()
    pattern = "%" + device.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return f"LOWER({column}) LIKE ? ESCAPE '\\'", (pattern,)
