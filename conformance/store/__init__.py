"""A results store: runs kept in a real database, SQLite in a file or a PostgreSQL server, and asked
what the latest verdicts are, what changed between two runs or two drivers, and one case's history.

    from conformance import store
    with store.open("results/store.sqlite") as db:      # or "postgresql://user@host/db"
        db.add("results/dml-direct.jsonl")              # -> Run; AlreadyStored if it is there
        db.runs(device="H100")                          # [Run], oldest first
        db.latest(device="H100", op="ACTIVATION_CELU")  # [Verdict], one a device x backend x op x type x level
        db.changes("3fa2b1c0", "results/new.jsonl")     # Changes: regressions, fixes, other
        db.changes_between("H100", "directml", "1.13.1.0", "1.15.4.0")
        db.history("ACTIVATION_CELU/float32/...", device="H100")  # [Entry], oldest first
        db.timeline(device="H100")                      # [(Run, Changes)]: each run against earlier verdicts
        db.records("3fa2b1c0")                          # (header, case records, footer), as read_results

A run is named by a prefix of its id (4 hex digits or more) or by a results file holding it. A
device is matched by a part of its name, whatever the case ("h100", "llvmpipe"). Errors:
conformance.errors.BadInput (a bad results file, AlreadyStored, runs.UnknownRun, runs.EmptyStore,
a password in a URL) and database.StoreFailed, an OutputFailed (the store cannot be opened, reached
or written), each one line naming the file or the store.

Schema (schema.py; version 1, recorded in schema_version):

    schema_version(version BIGINT PRIMARY KEY, applied TEXT)
    runs(run_id TEXT PRIMARY KEY,           -- sha256 of the header and case records (identity.py)
         file, added, start,                 -- the file it came from, when it was added, the run's start (UTC)
         backend, device, adapter, driver, directml, directml_sha256, dml_release, onnxruntime, harness,
         feature_level, tolerance_model, cases, failing, partial,
         header TEXT, footer TEXT)           -- JSON as read_results gives them
    records(run_id REFERENCES runs, position, -- PRIMARY KEY (run_id, position): the file's order
            case_id, op, dtype, feature_level, status, max_ulp DOUBLE PRECISION, mismatches BIGINT,
            record TEXT)                     -- the whole case record, JSON
    indexes: records (case_id), records (op, dtype, feature_level), runs (device, start)
"""
from conformance.store import adding, changes as changing, queries, runs as stored, schema
from conformance.store.adding import AlreadyStored
from conformance.store.database import Database, StoreFailed
from conformance.store.location import parse
from conformance.store.runs import EmptyStore, Run, UnknownRun

__all__ = ("open", "Store", "Run", "AlreadyStored", "UnknownRun", "EmptyStore", "StoreFailed")


def open(url, create: bool = True) -> "Store":  # noqa: A001 (store.open, as the dashboard calls it)
    """The store at url (a SQLite file's path, or postgresql://...), its tables made or migrated.
    create=False: a SQLite file that does not exist is BadInput, not made."""
    db = Database(parse(url), create=create)
    try:
        schema.migrate(db)
    except BaseException:
        db.close()
        raise
    return Store(db)


class Store:
    def __init__(self, db: Database):
        self.db = db

    @property
    def location(self) -> str:
        return str(self.db.location)

    def add(self, path) -> Run:
        """One results file's run, in one transaction."""
        return adding.add(self.db, path)

    def runs(self, device=None) -> list:
        where, parameters = stored.device_filter(device)
        return stored.select(self.db, where, parameters)

    def run(self, name) -> Run:
        return stored.find(self.db, name)

    def records(self, name) -> tuple:
        return queries.records(self.db, stored.find(self.db, name))

    def latest(self, device=None, op=None, dtype=None, level=None) -> list:
        return queries.latest(self.db, device, op, dtype, level)

    def changes(self, a, b) -> changing.Changes:
        return changing.between_runs(self.db, a, b)

    def changes_between(self, device, column, a, b) -> changing.Changes:
        """column: "driver", "directml" or "dml_release"."""
        return changing.between(self.db, device, column, a, b)

    def timeline(self, device=None) -> list:
        """[(Run, Changes)], oldest first: each run's cases against their previous verdict on its device and backend."""
        return changing.timeline(self.db, device)

    def history(self, case_id, device=None) -> list:
        return queries.history(self.db, case_id, device)

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
