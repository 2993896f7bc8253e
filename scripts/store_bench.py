"""How long the results store takes to add every committed results file under docs/ (and to answer its
queries), on SQLite in a fresh file and on PostgreSQL: a fresh database of a throwaway cluster
(tests/postgres.py) unless --postgresql URL names a server. Prints the figures; asserts nothing.

    .venv/bin/python scripts/store_bench.py [--only sqlite|postgresql] [--postgresql URL]
"""
import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conformance import store  # noqa: E402
from conformance.run.results import read_results  # noqa: E402


def measure(label: str, url: str, files) -> None:
    case_id = read_results(files[0])[1][0]["id"]
    started = time.perf_counter()
    with store.open(url) as opened:
        for path in files:
            opened.add(path)
        added = time.perf_counter() - started
        records = opened.db.rows("SELECT COUNT(*) FROM records")[0][0]
        print(f"{label}: {len(files)} files, {records:,} records added in {added:.1f} s")
        for name, query in (("query latest", opened.latest),
                            ("query changes (H100, DirectML 1.13.1.0 -> 1.15.4.0)",
                             lambda: opened.changes_between("h100", "directml", "1.13.1.0", "1.15.4.0")),
                            ("query history (one case: the first of the first file)",
                             lambda: opened.history(case_id)),
                            ("query runs", opened.runs)):
            started = time.perf_counter()
            query()
            print(f"  {name}: {time.perf_counter() - started:.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--postgresql", metavar="URL", help="an empty database of a server (default: a throwaway "
                        "cluster of this machine's PostgreSQL)")
    args = parser.parse_args()
    files = sorted(p for p in (ROOT / "docs").rglob("*.jsonl*") if p.name.endswith((".jsonl", ".jsonl.gz")))
    started = time.perf_counter()
    for path in files:
        read_results(path)
    print(f"reading the {len(files)} files alone (read_results): {time.perf_counter() - started:.1f} s")
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory() as folder:
            measure("SQLite", str(Path(folder) / "store.sqlite"), files)
    if args.only != "sqlite":
        with contextlib.ExitStack() as stack:
            url = args.postgresql
            if url is None:
                import postgres
                url = stack.enter_context(postgres.server(postgres.binaries()))()
            measure("PostgreSQL", url, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
