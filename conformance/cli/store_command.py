"""`conformance store`: runs kept in a results store (conformance/store/), and asked about.

    conformance store add RESULTS... [--store URL]
        each file its own transaction; exit 0 when every one was stored, 2 when one was refused
        (a bad file, a run already stored: one line each, the others are still added)
    conformance store query runs [--device D]
    conformance store query latest [--device D] [--op OP] [--dtype T] [--level L]
    conformance store query changes RUN_A RUN_B            (a run: an id prefix, or a results file)
    conformance store query changes --device D --driver X --driver Y   (or --directml, --dml-release)
        exit 1 when a case regressed
    conformance store query history CASE_ID [--device D]
    every query: --json, --store URL; an unknown run or an empty store: one line, exit 2

The store: --store, else $DMLC_STORE, else results/store.sqlite: a SQLite file's path, or
postgresql://user@host/db (the password from ~/.pgpass, PGPASSFILE or PGSERVICE, never the URL).
A store that cannot be opened, reached or written: one line, exit 5.
"""
import dataclasses
import os
import sys
import time

from conformance.cli import exitcodes
from conformance.cli.outputs import RESULTS_FOLDER
from conformance.errors import BadInput
from conformance.worker import jsonfloats

ENVIRONMENT = "DMLC_STORE"
DEFAULT_STORE = f"{RESULTS_FOLDER}/store.sqlite"
SIDE_OPTIONS = {"driver": "driver", "directml": "directml", "dml_release": "dml-release"}  # column -> option


def store_url(args) -> str:
    """The store a command works on: --store, else $DMLC_STORE, else DEFAULT_STORE."""
    return args.store or os.environ.get(ENVIRONMENT) or DEFAULT_STORE


def add_store_option(parser):
    parser.add_argument("--store", metavar="URL", help=f"a SQLite file's path or postgresql://user@host/db "
                        f"(default: ${ENVIRONMENT}, else {DEFAULT_STORE}); a password goes in ~/.pgpass, "
                        "PGPASSFILE or PGSERVICE, never in the URL")


def register(subparsers):
    parser = subparsers.add_parser("store", help="keep runs in a results store (SQLite or PostgreSQL) and ask it "
                                   "what changed", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="store_command", required=True, metavar="COMMAND")
    add = commands.add_parser("add", help="add results files' runs to the store (each in one transaction)")
    add.add_argument("results", nargs="+", metavar="RESULTS", help="results files (.jsonl or .jsonl.gz)")
    add_store_option(add)
    add.set_defaults(handler=cmd_add)

    query = commands.add_parser("query", help="latest verdicts, changes, a case's history, the stored runs")
    questions = query.add_subparsers(dest="question", required=True, metavar="QUESTION")
    runs = questions.add_parser("runs", help="the stored runs, oldest first")
    runs.add_argument("--device", help="only devices whose name contains this (any case)")
    latest = questions.add_parser("latest", help="the latest verdict per device x backend x operator x data type "
                                  "x feature level (latest by the run's start)")
    latest.add_argument("--device", help="only devices whose name contains this (any case)")
    latest.add_argument("--op", help="only this operator (its name as conformance specs lists it)")
    latest.add_argument("--dtype", help="only this data type (e.g. float16)")
    latest.add_argument("--level", help="only this feature level (e.g. 5_0)")
    changes = questions.add_parser("changes", help="every case whose verdict changed between two runs, or two "
                                   "drivers (DirectML versions, releases) of a device: regression, fix, other; "
                                   "exit 1 on a regression")
    changes.add_argument("runs", nargs="*", metavar="RUN", help="two runs: an id prefix (query runs lists them) "
                         "or a results file")
    changes.add_argument("--device", help="the device whose two drivers (or DirectML versions) to compare")
    for column, option in SIDE_OPTIONS.items():
        changes.add_argument(f"--{option}", dest=column, action="append", default=[], metavar="VERSION",
                             help=f"give twice: the {option.replace('-', ' ')} before, then after")
    history = questions.add_parser("history", help="one case's verdict in every stored run, oldest first")
    history.add_argument("case_id", metavar="CASE_ID")
    history.add_argument("--device", help="only devices whose name contains this (any case)")
    for command in (runs, latest, changes, history):
        command.add_argument("--json", action="store_true", help="print JSON instead of a table")
        add_store_option(command)
        command.set_defaults(handler=cmd_query)
    return parser, commands  # a further `conformance store` command: commands.add_parser(...)


def cmd_add(args) -> int:
    from conformance import store
    from reports.summary import plural
    url = store_url(args)
    refused = stored = 0
    with store.open(url) as opened:
        for path in args.results:
            started = time.perf_counter()
            try:
                run = opened.add(path)
            except BadInput as error:  # this file only: the others are still added
                print(f"error: {error}", file=sys.stderr)
                refused += 1
                continue
            stored += 1
            print(f"stored {path}: run {run.short}, {run.backend} on {run.device}, {plural(run.cases, 'case')} "
                  f"({run.failing} failing), in {time.perf_counter() - started:.2f} s")
    if len(args.results) > 1:
        print(f"{stored} of {plural(len(args.results), 'file')} stored in {opened.location}"
              + (f"; {refused} refused" if refused else ""))
    return exitcodes.BAD_INPUT if refused else exitcodes.CONFORMANT


def cmd_query(args) -> int:
    from conformance import store
    url = store_url(args)
    if args.question == "changes":
        _check_changes(args)
    with store.open(url, create=False) as opened:
        return _QUESTIONS[args.question](opened, args)


def _runs(opened, args) -> int:
    found = opened.runs(device=args.device)
    if not found:
        from conformance.store import runs as stored
        stored.check_not_empty(opened.db)
        raise BadInput(f"--device {args.device}: no stored run's device matches it")
    rows = [[run.short, run.start, run.backend, run.device, run.driver, run.directml, run.dml_release,
             run.cases, run.failing, run.partial and "partial", run.file] for run in found]
    return _print(args, [run.as_dict() for run in found], rows,
                  ["run", "start", "backend", "device", "driver", "DirectML", "release", "cases", "failing", "", "file"])


def _latest(opened, args) -> int:
    from conformance import statuses
    found = opened.latest(device=args.device, op=args.op, dtype=args.dtype, level=args.level)
    if not found:
        raise BadInput("no stored case matches " + " ".join(f"--{key} {value}" for key, value in (
            ("device", args.device), ("op", args.op), ("dtype", args.dtype), ("level", args.level)) if value))
    rows = [[v.device, v.backend, v.op, v.dtype, v.feature_level, v.status,
             ", ".join(f"{n} {statuses.label(s)}" for s, n in sorted(v.counts.items(), key=lambda i: statuses.rank(i[0]))),
             v.run_id[:12], v.start] for v in found]
    return _print(args, [dataclasses.asdict(v) for v in found], rows,
                  ["device", "backend", "operator", "data type", "FL", "verdict", "cases", "run", "start"])


def _changes(opened, args) -> int:
    from conformance.store import changes as changing
    column = next((column for column in SIDE_OPTIONS if getattr(args, column)), None)
    if column:
        result = opened.changes_between(args.device, column, *getattr(args, column))
    else:
        result = opened.changes(*args.runs)
    rows = [[c.kind, c.case_id, c.backend, _cell(c.before, c.ulp_before), _cell(c.after, c.ulp_after)]
            for c in result.changes]
    failed = exitcodes.NOT_CONFORMANT if result.of(changing.REGRESSION) else exitcodes.CONFORMANT
    if args.json:
        print(jsonfloats.dumps({"before": result.before, "after": result.after, "summary": result.summary(),
                                "changes": [dataclasses.asdict(c) for c in result.changes]}, indent=1))
        return failed
    from tabulate import tabulate
    print(f"before: {result.before}\nafter:  {result.after}")
    if rows:
        print(tabulate(rows, headers=["change", "case", "backend", "before", "after"], disable_numparse=True))
    print(result.summary())
    return failed


def _history(opened, args) -> int:
    found = opened.history(args.case_id, device=args.device)
    rows = [[e.run.start, e.run.short, e.run.backend, e.run.device, e.run.driver, e.run.directml,
             _cell(e.status, e.max_ulp), e.mismatches] for e in found]
    entries = [{**e.run.as_dict(), "status": e.status, "max_ulp": e.max_ulp, "mismatches": e.mismatches}
               for e in found]
    return _print(args, entries, rows, ["start", "run", "backend", "device", "driver", "DirectML", "verdict",
                                        "mismatches"])


_QUESTIONS = {"runs": _runs, "latest": _latest, "changes": _changes, "history": _history}


def _check_changes(args):
    sides = [column for column in SIDE_OPTIONS if getattr(args, column)]
    if len(sides) > 1:
        raise BadInput("query changes: compare by one of " + ", ".join(f"--{o}" for o in SIDE_OPTIONS.values()))
    if sides:
        values = getattr(args, sides[0])
        if len(values) != 2 or args.runs:
            raise BadInput(f"query changes: give --{SIDE_OPTIONS[sides[0]]} twice (before, after) and no RUN")
        if not args.device:
            raise BadInput(f"query changes --{SIDE_OPTIONS[sides[0]]}: give --device too (the device whose "
                           f"{SIDE_OPTIONS[sides[0]].replace('-', ' ')}s to compare)")
    elif len(args.runs) != 2:
        raise BadInput("query changes: give two runs (RUN_A RUN_B), or --device D --driver X --driver Y")


def _cell(status, ulp) -> str:
    return status + (f" ({ulp:g} ULP)" if ulp is not None else "")


def _print(args, data, rows, headers) -> int:
    if args.json:
        print(jsonfloats.dumps(data, indent=1))
    else:
        from tabulate import tabulate
        print(tabulate(rows, headers=headers, disable_numparse=True))
    return exitcodes.CONFORMANT
