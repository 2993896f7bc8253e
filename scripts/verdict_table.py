"""A markdown table of verdicts per operator from results files (JSON lines, plain or .gz), one column
per label (several files of a label, comma-separated, are read as one; a case judged twice counts once,
by its last record): pass / fail, then the other statuses, the not reachable (n/r) and the cases the deciding
verdict passes that WebNN's count of ULP (the `ulp` verdict) fails ("beyond WebNN").

    python scripts/verdict_table.py cpu=results/cpu.jsonl dml-direct=a.jsonl.gz,b.jsonl.gz
"""
import argparse
import collections
import gzip
import json
import sys

from conformance.statuses import FAIL, NOT_REACHABLE, PASS


def tallies(paths: list) -> dict:
    """operator -> Counter of statuses, plus "beyond" (d3d pass, ulp fail)."""
    last = {}
    for path in paths:
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as lines:
            for line in lines:
                record = json.loads(line)
                if record.get("type") == "case":
                    last[record["id"]] = record
    out = collections.defaultdict(collections.Counter)
    for record in last.values():
        count = out[record["op"]]
        count[record["status"]] += 1
        verdicts = record.get("verdicts") or {}
        if record["status"] == PASS and verdicts.get("ulp") == FAIL:
            count["beyond"] += 1
    return out


def cell(count: collections.Counter) -> str:
    if not count:
        return ""
    other = sum(v for k, v in count.items() if k not in (PASS, FAIL, NOT_REACHABLE, "beyond"))
    notes = [f"{n} {what}" for n, what in ((other, "other"), (count[NOT_REACHABLE], "n/r"),
                                          (count["beyond"], "beyond WebNN")) if n]
    return f"{count[PASS]} / {count[FAIL]}" + (f" ({', '.join(notes)})" if notes else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("columns", nargs="+", metavar="LABEL=RESULTS")
    args = parser.parse_args(argv)
    columns = []
    for spec in args.columns:
        label, sep, path = spec.partition("=")
        if not sep:
            parser.error(f"{spec}: expected LABEL=RESULTS")
        try:
            columns.append((label, tallies(path.split(","))))
        except (OSError, ValueError) as error:
            print(f"error: {path}: {error}", file=sys.stderr)
            return 2
    ops = sorted({op for _, table in columns for op in table})
    print("| operator | " + " | ".join(label for label, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for op in ops:
        print(f"| {op} | " + " | ".join(cell(table.get(op, collections.Counter())) for _, table in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
