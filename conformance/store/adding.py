"""One results file into the store, in one transaction: its run's row and every case record, or
nothing. The file is read whole first (read_results: a bad line is refused before the store is
touched); a failure after that (a full disk, a lost server, Ctrl-C, a kill) leaves none of the run."""
from pathlib import Path

from conformance.errors import BadInput
from conformance.run.results import encode, read_results
from conformance.store import identity, runs
from conformance.store.schema import RECORD_COLUMNS, RUN_COLUMNS, now


class AlreadyStored(BadInput):
    """The run of a results file is in the store already (from this file or a copy of it)."""

    def __init__(self, path, run):
        self.run = run
        super().__init__(f"{path}: this run is already stored as {run.short} (added {run.added} from {run.file})")


def add(db, path) -> runs.Run:
    if not Path(path).is_file():
        raise BadInput(f"{path}: no such results file")
    header, records, footer = read_results(path)
    run_id, encoded = identity.lines(header, records)
    stored = runs.by_id(db, run_id)
    if stored is not None:
        raise AlreadyStored(path, stored)
    row = {"run_id": run_id, "file": str(path), "added": now(), **identity.run_columns(header, records, footer),
           "header": encode(header), "footer": None if footer is None else encode(footer)}
    rows = ((run_id, position, *identity.record_columns(record), text)
            for position, (record, text) in enumerate(zip(records, encoded)))
    try:
        with db.transaction():
            db.execute(f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({', '.join('?' for _ in RUN_COLUMNS)})",
                       [row[column] for column in RUN_COLUMNS])
            db.insert_many("records", RECORD_COLUMNS, rows)
    except Exception as error:
        stored = runs.by_id(db, run_id) if db.is_duplicate(error) else None
        if stored is not None:  # another add of the same run committed first
            raise AlreadyStored(path, stored) from None
        raise
    return runs.by_id(db, run_id)
