"""Run cases in the Windows harness's in-process dml backend one operator and data type at a time,
each in a Windows process of its own, and merge the pieces into one results file.

Under Wine on lavapipe every DirectML session of ONNX Runtime holds about 1.5 GB of memory until the
process ends, and an in-process run keeps all of its sessions: the default cases (about 30 sessions)
do not fit in one process on a small machine. One process per operator and data type needs one or
two. On a real GPU a single `conformance lane windows -- run --backend dml` does it (docs/windows.md).

    python scripts/windows_harness/run_in_pieces.py --results R.jsonl [-k EXPR] [PATHS] [-- RUN OPTIONS]

The merged file has the first piece's header (with "pieces": what each process ran, its exit code,
sessions and seconds; "case_files": every piece's), every case record in the order `conformance list` gives, and one footer.
Exit code: 0 conformant, 1 not conformant, 2 or more: a piece ended otherwise (its code).
"""
import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from conformance import statuses
from conformance.caseset.caseload import load_paths
from conformance.caseset.selection import select
from conformance.cli import windows_harness
from conformance.run.results import ResultsWriter, read_results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("-k", dest="keyword")
    parser.add_argument("--results", required=True)
    parser.add_argument("--backend", default="dml")
    parser.add_argument("extra", nargs=argparse.REMAINDER, help="-- more `conformance run` options")
    args = parser.parse_args(argv)
    extra = args.extra[1:] if args.extra[:1] == ["--"] else args.extra
    harness, reason = windows_harness.find_harness()
    if harness is None:
        print(f"run_in_pieces: {reason}", file=sys.stderr)
        return 3
    cases = load_paths(args.paths or None)
    cases = select(cases, args.keyword) if args.keyword else cases
    families = list(dict.fromkeys(f"{c.op}/{c.dtype}/" for c in cases))
    order = {c.id: n for n, c in enumerate(cases)}
    header, records, pieces, worst, case_files = None, [], [], 0, {}
    with tempfile.TemporaryDirectory() as folder:
        for number, family in enumerate(families):
            keyword = f"({args.keyword}) and {family}" if args.keyword else family
            piece = Path(folder) / f"piece-{number}.jsonl"
            console = io.StringIO()
            began = time.monotonic()
            code = windows_harness.run(harness.lane, harness.python_dir,
                                       ["run", *args.paths, "--backend", args.backend, "-k", keyword, "--quiet",
                                        "--results", str(piece), *extra], output=console)
            piece_header, piece_records, footer = read_results(piece) if piece.exists() else ({}, [], None)
            header = header or piece_header
            case_files.update(piece_header.get("case_files") or {})
            records += piece_records
            pieces.append({"keyword": keyword, "exit_code": code, "cases": len(piece_records),
                           "sessions_created": (footer or {}).get("sessions_created"),
                           "seconds": round(time.monotonic() - began, 1)})
            print(f"[{number + 1}/{len(families)}] {family}: exit {code}, {len(piece_records)} cases, "
                  f"{pieces[-1]['seconds']} s", file=sys.stderr)
            if code not in (0, 1) or footer is None:
                print(console.getvalue()[-3000:], file=sys.stderr)
                worst = max(worst, code if code not in (0, 1) else 2)
    if header is None:
        return worst or 2
    records.sort(key=lambda r: order.get(r["id"], len(order)))
    header = {**header, "argv": ["run_in_pieces.py", *(argv if argv is not None else sys.argv[1:])],
              "pieces": pieces, **({"case_files": case_files} if case_files else {})}
    writer = ResultsWriter(args.results)
    for record in [header, *records]:
        writer.write(record)
    writer.write({"type": "footer", "seconds": round(sum(p["seconds"] for p in pieces), 3), "cases": len(records),
                  "sessions_created": sum(p["sessions_created"] or 0 for p in pieces),
                  "interrupted": False, "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    writer.close()
    failed = any(r["status"] in statuses.FAILING for r in records)
    print(f"run_in_pieces: {len(records)} cases in {len(pieces)} pieces -> {args.results}", file=sys.stderr)
    return worst or (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
