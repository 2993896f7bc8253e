"""The store's tables, one definition for SQLite and PostgreSQL, and their migrations: each version's
statements run once, in order, in one transaction, and schema_version records the versions applied.
A store made by a newer harness (a version this one does not know) is refused rather than misread.

The types are those both databases take alike: TEXT, BIGINT (mismatches reach 2**32 in a sweep),
DOUBLE PRECISION (max_ulp; infinite where a NaN stands for a number). Records and headers are JSON
text as results files write it (NaN and the infinities as their names: conformance/worker/jsonfloats.py);
on PostgreSQL `record::jsonb` reads inside them.
"""
from datetime import datetime, timezone

from conformance.errors import BadInput

VERSION = 1

RUN_COLUMNS = ("run_id", "file", "added", "start", "backend", "device", "adapter", "driver", "directml",
               "directml_sha256", "dml_release", "onnxruntime", "harness", "feature_level", "tolerance_model",
               "cases", "failing", "partial", "header", "footer")
RECORD_COLUMNS = ("run_id", "position", "case_id", "op", "dtype", "feature_level", "status", "max_ulp",
                  "mismatches", "record")

MIGRATIONS = {
    1: (
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,      -- sha256 of the run's header and case records (identity.py)
            file TEXT NOT NULL,           -- the results file it was added from, as given
            added TEXT NOT NULL,          -- when, ISO 8601 UTC
            start TEXT,                   -- the run's start (its header), ISO 8601 UTC: 'latest' orders by it
            backend TEXT, device TEXT, adapter TEXT, driver TEXT,
            directml TEXT,                -- the DirectML.dll file version the run loaded
            directml_sha256 TEXT, dml_release TEXT, onnxruntime TEXT, harness TEXT,
            feature_level TEXT, tolerance_model TEXT,
            cases BIGINT NOT NULL, failing BIGINT NOT NULL,
            partial TEXT,                 -- why the results are partial, or NULL
            header TEXT NOT NULL,         -- JSON, as read_results gives it
            footer TEXT                   -- JSON, or NULL where the run wrote none
        )""",
        """CREATE TABLE records (
            run_id TEXT NOT NULL REFERENCES runs (run_id),
            position BIGINT NOT NULL,     -- the record's place in its file, from 0
            case_id TEXT NOT NULL, op TEXT NOT NULL, dtype TEXT, feature_level TEXT,
            status TEXT NOT NULL, max_ulp DOUBLE PRECISION, mismatches BIGINT,
            record TEXT NOT NULL,         -- the whole case record, JSON
            PRIMARY KEY (run_id, position)
        )""",
        "CREATE INDEX records_case ON records (case_id)",
        "CREATE INDEX records_cell ON records (op, dtype, feature_level)",
        "CREATE INDEX runs_device ON runs (device, start)",
    ),
}


def migrate(db):
    """Bring db's tables to VERSION."""
    with db.transaction():
        db.execute("create table if not exists schema_version (version bigint primary key, applied text not null)")
        current = db.rows("select max(version) from schema_version")[0][0] or 0
        if current > VERSION:
            raise BadInput(f"store {db.location}: its schema is version {current}, newer than this harness's "
                           f"{VERSION}: use a newer dml-conformance")
        for version in range(current + 1, VERSION + 1):
            for statement in MIGRATIONS[version]:
                db.execute(statement)
            db.execute("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (version, now()))


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
