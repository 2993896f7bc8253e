"""Run cases in the Windows harness's in-process dml backend in pieces, each piece a Windows process
of its own, up to --jobs at once, and merge the pieces into one results file.

Why: under Wine a process keeps every DirectML session it made. On lavapipe each holds about 1.5 GB
of memory (the default cases do not fit in one process on a small machine); on a GPU DirectML can
make only so many devices in one process (docs/gpu/catalogue/README.md). A piece is one operator and
data type (--by family, the default) or one operator (--by op).

    python scripts/windows_harness/run_in_pieces.py --results R.jsonl [--jobs N] [--by family|op]
        [--pytest] [--piece-timeout S] [-k EXPR] [PATHS] [RUN OPTIONS] [-- RUN OPTIONS]

RUN OPTIONS are `conformance run`'s (--backend, default dml; --feature-level, --seed, ...); each
piece runs `conformance lane windows -- run ... -k "(EXPR) and PIECE" --results PIECE.jsonl`, or
with --pytest the pytest plugin: `python -m pytest --pyargs conformance.cases (or PATHS)
--conformance-backend ... -k "(EXPR) and PIECE" --conformance-results PIECE.jsonl`, whose -k is
pytest's (no '=' or ','). Pieces run concurrently as separate Linux processes, each with its own
clone of the lane's Wine prefix (its own wineserver), X display and temporary folders.

The merged file has the first piece's header, with "argv", "pieces" (per piece: its keyword, exit
code, cases, sessions, seconds, and "missing": the ids it was to run and has no record of; a piece
never started has "exit_code": null) and every piece's "case_files"; every case record in the order
`conformance list` gives; an "in-flight" record with the cases a stopped piece's backend was running;
one footer ("seconds": the wall time, "interrupted": true after Ctrl-C, SIGINT or SIGTERM).
A piece that crashes or is killed keeps the records its partial results file has.

Ctrl-C, SIGINT or SIGTERM: no new piece starts, each running piece gets Ctrl-C (its Windows run
stops and keeps its results), the merged file is written at once with the finished pieces and again
once the running ones have stopped.

Exit code: 0 conformant, 1 not conformant, 2 bad usage, 3 the Windows harness is not provisioned,
130 interrupted, else a piece ended otherwise (the highest such code: 124 for --piece-timeout,
2 for a piece that wrote no footer).
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from conformance import statuses
from conformance.backends import wine_lane
from conformance.caseset.caseload import CaseFileError, load_paths
from conformance.caseset.selection import choose, select
from conformance.cli import windows_harness
from conformance.cli.command import build_parser
from conformance.errors import BadInput
from conformance.run.results import ResultsWriter, read_results

EXIT_BAD_USAGE, EXIT_NO_HARNESS, EXIT_INTERRUPTED = 2, 3, 130
FINISHED = (0, 1)  # a piece's exit codes for "ran every case" (conformant or not)
# After Ctrl-C a piece's Windows program has CTRL_C_GRACE seconds before it is killed; then Wine's cleanup.
STOP_GRACE = windows_harness.CTRL_C_GRACE + 60
REPORTS = ("markdown", "json", "html", "junit")  # one file per run: each piece would overwrite it
# `conformance run` options with a pytest plugin equivalent (--pytest).
PYTEST_VALUES = {"backend": "--conformance-backend", "feature_level": "--conformance-feature-level",
                 "seed": "--conformance-seed", "tolerance_model": "--conformance-tolerance-model",
                 "max_elements": "--conformance-max-elements", "save_failures": "--conformance-save-failures"}
PYTEST_LISTS = {"provider_option": "--conformance-provider-option", "tolerance": "--conformance-tolerance",
                "ops": "--conformance-op"}


@dataclass
class Piece:
    number: int
    keyword: str  # what selects its cases, without the user's -k
    ids: list
    results: Path = None
    log: Path = None
    process: subprocess.Popen = None
    began: float = None
    seconds: float = None
    code: int = None


def parse(argv):
    """-> (own options, conformance run namespace, run arguments for each piece)."""
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, help="the merged results file")
    parser.add_argument("--jobs", type=int, default=1, help="pieces at once (default 1)")
    parser.add_argument("--by", choices=("family", "op"), default="family",
                        help="a piece per operator and data type (default) or per operator")
    parser.add_argument("--pytest", action="store_true", help="run each piece through the pytest plugin")
    parser.add_argument("--piece-timeout", type=float, help="end a piece after this many seconds (exit 124)")
    own, rest = parser.parse_known_args(argv[:split])
    run_args = ["--backend", "dml", *rest, *argv[split + 1:]]  # a later --backend wins
    run = build_parser().parse_args(["run", *run_args])
    if own.jobs < 1:
        parser.error("--jobs: at least 1")
    given = [f"--{name}" for name in REPORTS if getattr(run, name)]
    if given:
        parser.error(f"{', '.join(given)}: each piece would write its own; run `conformance report` on --results")
    if own.pytest and run.smoke:
        parser.error("--smoke: the pytest plugin has no such option")
    return own, run, run_args


def plan(run, by: str) -> tuple:
    """-> (the selected case ids in `conformance list` order, the pieces)."""
    cases = choose(load_paths(run.paths or None, max_elements=run.max_elements), run.keyword, run.ops, run.smoke)
    groups = {}
    for case in cases:
        groups.setdefault(f"{case.op}/{case.dtype}/" if by == "family" else f"{case.op}/", []).append(case.id)
    pieces = [Piece(number, keyword, ids) for number, (keyword, ids) in enumerate(groups.items())]
    for piece in pieces:  # each piece's -k must select its own cases and no other piece's
        chosen = [case.id for case in select(cases, piece.keyword)]
        if chosen != piece.ids:
            raise BadInput(f"piece -k {piece.keyword!r} selects {len(chosen)} cases, not its {len(piece.ids)}")
    return [case.id for case in cases], pieces


def piece_argv(piece: Piece, run, run_args, pytest_mode: bool) -> list:
    keyword = f"({run.keyword}) and {piece.keyword}" if run.keyword else piece.keyword
    if not pytest_mode:  # a later -k, --quiet or --results replaces the user's
        return ["run", *run_args, "-k", keyword, "--quiet", "--results", str(piece.results)]
    options = [item for name, flag in PYTEST_VALUES.items() if getattr(run, name) is not None
               for item in (flag, str(getattr(run, name)))]
    options += [item for name, flag in PYTEST_LISTS.items() for value in getattr(run, name) for item in (flag, value)]
    options += ["--conformance-forbid-flush"] if run.forbid_flush else []
    where = run.paths or ["--pyargs", "conformance.cases"]
    return ["python", "-m", "pytest", *where, "-p", "no:cacheprovider", "-q", *options, "-k", keyword,
            "--conformance-results", str(piece.results)]


def start(piece: Piece, argv: list, timeout):
    """The piece as `conformance lane windows -- ARGV`, a Linux process in a session of its own (Ctrl-C
    reaches it only through stop()), ended with this one (SIGTERM when this process dies)."""
    command = [sys.executable, "-m", "conformance", "lane", "windows",
               *(["--timeout", str(timeout)] if timeout else []), "--", *argv]
    with open(piece.log, "wb") as log:
        piece.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=wine_lane.die_with_parent)
    piece.began = time.monotonic()


def finished(piece: Piece) -> bool:
    if piece.process is None or piece.code is not None:
        return piece.code is not None
    code = piece.process.poll()
    if code is None:
        return False
    piece.code = 128 - code if code < 0 else code  # killed by a signal: 128 + its number, as a shell says
    piece.seconds = round(time.monotonic() - piece.began, 1)
    return True


def stop(running: list):
    """Ctrl-C to every running piece; wait for them (STOP_GRACE), then kill what is left."""
    for piece in running:
        try:
            os.kill(piece.process.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STOP_GRACE
    try:
        while not all(finished(p) for p in running) and time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:  # a second Ctrl-C: no more waiting
        pass
    for piece in running:
        if not finished(piece):
            os.killpg(piece.process.pid, signal.SIGKILL)
            piece.process.wait()
            finished(piece)


def run_all(pieces: list, jobs: int, launch, on_interrupt) -> bool:
    """Run the pieces, jobs at once, in order; -> True when interrupted (Ctrl-C or SIGTERM)."""
    waiting, running = list(pieces), []
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                running.append(waiting.pop(0))
                launch(running[-1])
            for piece in [p for p in running if finished(p)]:
                running.remove(piece)
                report(piece, len(pieces))
            time.sleep(0.2)
        return False
    except KeyboardInterrupt:
        print(f"run_in_pieces: interrupted: {len(running)} running piece(s) get Ctrl-C, "
              f"{len(waiting)} not started", file=sys.stderr)
        running = [p for p in running if p.process is not None]  # not one interrupted while being started
        on_interrupt()
        stop(running)
        for piece in running:
            report(piece, len(pieces))
        return True


def report(piece: Piece, total: int):
    print(f"[{piece.number + 1}/{total}] {piece.keyword}: exit {piece.code}, {piece.seconds} s", file=sys.stderr)
    if piece.code not in FINISHED:
        print(piece.log.read_text(encoding="utf-8", errors="replace")[-3000:], file=sys.stderr)


def read_piece(piece: Piece):
    """-> (header, records, footer, in-flight ids) of a piece's results as far as they go."""
    if piece.code is None or not piece.results.exists():
        return {}, [], None, []
    try:
        header, records, footer = read_results(piece.results)
    except BadInput as error:
        print(f"run_in_pieces: {piece.keyword}: {error}", file=sys.stderr)
        return {}, [], None, []
    return header, records, footer, header.get("unfinished", [])


def merge(path, pieces: list, order: dict, argv: list, began: float, interrupted: bool):
    """Write the merged results (through a temporary file: a kill never leaves half of one)."""
    header, records, entries, case_files, in_flight = None, [], [], {}, []
    for piece in pieces:
        piece_header, piece_records, footer, unfinished = read_piece(piece)
        header = header or (piece_header or None)
        case_files.update(piece_header.get("case_files") or {})
        records += piece_records
        in_flight += unfinished
        done = {record["id"] for record in piece_records}
        missing = [case_id for case_id in piece.ids if case_id not in done] if piece.code is not None else []
        entries.append({"keyword": piece.keyword, "exit_code": piece.code, "cases": len(piece_records),
                        "sessions_created": (footer or {}).get("sessions_created"), "seconds": piece.seconds,
                        **({"missing": missing} if missing else {})})
    if header is None:
        return None, entries
    records.sort(key=lambda r: order.get(r["id"], len(order)))
    header = {**header, "argv": ["run_in_pieces.py", *argv], "pieces": entries,
              **({"case_files": case_files} if case_files else {})}
    footer = {"type": "footer", "seconds": round(time.monotonic() - began, 3), "cases": len(records),
              "sessions_created": sum(entry["sessions_created"] or 0 for entry in entries),
              "interrupted": interrupted, "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}{''.join(path.suffixes)}")
    writer = ResultsWriter(partial)
    for record in [header, *records, *([{"type": "in-flight", "ids": in_flight}] if in_flight else []), footer]:
        writer.write(record)
    writer.close()
    os.replace(partial, path)
    return records, entries


def interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    own, run, run_args = parse(argv)
    harness, reason = windows_harness.find_harness()
    if harness is None:
        print(f"run_in_pieces: {reason}", file=sys.stderr)
        return EXIT_NO_HARNESS
    try:
        ids, pieces = plan(run, own.by)
    except (BadInput, CaseFileError) as error:
        print(f"run_in_pieces: {error}", file=sys.stderr)
        return EXIT_BAD_USAGE
    if not pieces:
        print("run_in_pieces: no cases selected", file=sys.stderr)
        return EXIT_BAD_USAGE
    order = {case_id: n for n, case_id in enumerate(ids)}
    began = time.monotonic()
    previous = signal.signal(signal.SIGTERM, interrupt)
    print(f"run_in_pieces: {len(ids)} cases in {len(pieces)} pieces (by {own.by}), {own.jobs} at once"
          f"{' through pytest' if own.pytest else ''}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="run-in-pieces-") as folder:
        for piece in pieces:
            piece.results = Path(folder) / f"piece-{piece.number}.jsonl"
            piece.log = Path(folder) / f"piece-{piece.number}.log"

        def launch(piece):
            start(piece, piece_argv(piece, run, run_args, own.pytest), own.piece_timeout)

        def early():  # what finished, before waiting for the running pieces to stop
            merge(own.results, [p for p in pieces if p.code is not None], order, argv, began, True)

        interrupted = run_all(pieces, own.jobs, launch, early)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the merged file is written in one go
        records, entries = merge(own.results, pieces, order, argv, began, interrupted)
    signal.signal(signal.SIGTERM, previous)
    # A piece that ran to its end (0 or 1) but left cases without a record counts as 2.
    codes = [entry["exit_code"] if entry["exit_code"] not in FINISHED else 2 for entry in entries
             if entry["exit_code"] is not None and (entry["exit_code"] not in FINISHED or "missing" in entry)]
    if records is None:
        print("run_in_pieces: no piece wrote results", file=sys.stderr)
        return EXIT_INTERRUPTED if interrupted else max(codes, default=2)
    missing = sum(len(entry.get("missing", [])) for entry in entries)
    print(f"run_in_pieces: {len(records)} of {len(ids)} cases in {len(pieces)} pieces -> {own.results}"
          + (f"; {missing} case(s) of stopped pieces have no record" if missing else "")
          + ("; interrupted" if interrupted else ""), file=sys.stderr)
    if interrupted:
        return EXIT_INTERRUPTED
    if codes:
        return max(codes)
    return 1 if any(r["status"] in statuses.FAILING for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
