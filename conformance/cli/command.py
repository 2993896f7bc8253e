"""The `conformance` command.

Exit codes: conformance/cli/exitcodes.py.
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
import traceback

_IMPORTED = time.perf_counter()  # a command's start, its imports included (the first main() only)

from conformance import __version__, backends, featurelevels, specs
from conformance.caseset.caseload import DEFAULT_MAX_ELEMENTS, CaseFileError, load_paths
from conformance.caseset import shards
from conformance.caseset.selection import choose
from conformance.cli import exitcodes
from conformance.cli.outputs import RESULTS_FOLDER, check_writable, write, write_reports
from conformance.errors import BadInput, OutputFailed
from conformance.judge.models import DEFAULT_MODEL, MODELS
from reports.summary import plural


_TERMINATED = threading.Event()


def _on_sigterm(signum, frame):
    """SIGTERM is raised as Ctrl-C is, so that whatever handles that handles it too (the runner keeps
    what it finished, the footer is written); the run then says so and ends with exitcodes.TERMINATED."""
    _TERMINATED.set()
    raise KeyboardInterrupt


def main(argv=None) -> int:
    global _IMPORTED
    started, _IMPORTED = _IMPORTED or time.perf_counter(), None  # the summary's time is the user's wait
    from conformance.run.progress import tolerant_console
    tolerant_console()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _main(argv, started)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv, started) -> int:
    _TERMINATED.clear()
    try:
        parser = build_parser()
        args = _parse(parser, argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return exitcodes.BAD_INPUT
        args.started = started
        code = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        if not _stdout_closed():
            return _harness_bug()  # a socket's, say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the last flush stays quiet
        return exitcodes.BROKEN_PIPE
    except KeyboardInterrupt:  # outside a run's own handling (loading, starting the backend, reports)
        if _TERMINATED.is_set():
            print("terminated (SIGTERM)", file=sys.stderr)
            return exitcodes.TERMINATED
        print("interrupted", file=sys.stderr)
        return exitcodes.INTERRUPTED
    except CaseFileError as error:
        print(f"error: {len(error.problems)} problem(s) in the case files; nothing was run:", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem}", file=sys.stderr)
        return exitcodes.BAD_INPUT
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return exitcodes.BAD_INPUT
    except backends.BackendUnavailable as error:
        print(f"error: backend unavailable: {error}", file=sys.stderr)
        return exitcodes.BACKEND_UNAVAILABLE
    except OutputFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return exitcodes.OUTPUT_FAILED
    except Exception:
        return _harness_bug()


def _harness_bug() -> int:
    traceback.print_exc()
    print(f"error: a bug in the harness (traceback above; exit {exitcodes.HARNESS_BUG})", file=sys.stderr)
    return exitcodes.HARNESS_BUG


def _stdout_closed() -> bool:
    """Whether the reader of standard output is gone (a pipe with no reader polls as an error)."""
    import select as io  # the module; `select` here is conformance.caseset.selection's
    try:
        poller = io.poll()
        poller.register(sys.stdout.fileno(), io.POLLOUT)
        return any(events & io.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), or no real stdout
        return False


def _parse(parser, argv):
    """parse_args, but an option a command does not know is refused with that command's usage (argparse
    gives the top level's) and the closest option it has."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        import difflib
        command = parser.commands.get(getattr(args, "command", None), parser)
        options = [o for action in command._actions for o in action.option_strings]  # argparse has no public list
        close = difflib.get_close_matches(unknown[0].split("=", 1)[0], options, n=1)
        command.error(f"unrecognized arguments: {' '.join(unknown)}"
                      + (f" (did you mean {close[0]}?)" if close and unknown[0].startswith("-") else ""))
    return args


def build_parser():
    parser = argparse.ArgumentParser(prog="conformance", description="Certify DirectML operators "
                                     "against their specification.")
    parser.add_argument("--version", action="version", version=f"dml-conformance {__version__}")
    # A handler that runs another command (lane smoke: run --smoke) calls args.main, so that the
    # modules adding subcommands need not import this one.
    parser.set_defaults(main=main, parse_options=parse_options)
    sub = parser.add_subparsers(dest="command")

    def case_options(p):
        p.add_argument("paths", nargs="*", help="case files or folders (default: the shipped cases/)")
        p.add_argument("-k", dest="keyword", help="select cases whose id matches, pytest style: "
                       "'float16 and rank4 and not specials' (words are substrings of the id: a word that is an "
                       "operator's name also matches the operators whose names begin with it; --op is exact)")
        p.add_argument("--op", dest="ops", action="append", default=[], metavar="OPERATOR",
                       help="only this operator's cases, by its exact name as `conformance specs` prints it "
                       "(repeat for several); combines with -k and --smoke")
        p.add_argument("--smoke", action="store_true", help="only the smoke cases (each case file's `smoke` "
                       "selection: what CI runs through dml-wine)")
        p.add_argument("--seed", type=int, default=0, help="global seed (each case derives its own)")
        p.add_argument("--max-elements", type=int, metavar="N",
                       help=f"refuse shapes with more elements (default {DEFAULT_MAX_ELEMENTS}); given, it also cuts "
                       "a streamed sweep (exhaustive_float32, exhaustive_float16_pairs) of more inputs to an evenly "
                       "spread sample of at most N: every k-th input, k prime, the case id showing step=k "
                       "(default: sweeps run whole)")
        p.add_argument("--tolerance", action="append", default=[], metavar="[OP:]DTYPE=ULP|ULP",
                       help="override tolerances, e.g. 4, float16=3 or OPERATOR:float32=20")
        p.add_argument("--forbid-flush", action="store_true", help="do not accept flushed denormals")
        p.add_argument("--tolerance-model", choices=MODELS, default=DEFAULT_MODEL,
                       help="what decides a case's status: d3d (default: each element within the interval "
                       "the Direct3D precision rules allow its formula) or ulp (WebNN's ULP tolerances); "
                       "every record carries both verdicts")
        p.add_argument("--shard", metavar="K/N", help="only part K of N of the selected cases, balanced by their "
                       "elements (the same parts on any machine); `conformance merge` joins the parts' results")

    run_p = sub.add_parser("run", help="run cases on a backend and judge them")
    case_options(run_p)
    run_p.add_argument("--backend", default="auto", help=f"{', '.join(backends.names())} (default auto; "
                       "`conformance backends` says which are available here)")
    run_p.add_argument("--provider-option", action="append", default=[], metavar="KEY=VALUE",
                       help="provider option, e.g. device_id=1")
    run_p.add_argument("--feature-level", default=featurelevels.DEFAULT_LEVEL,
                       help=f"the DirectML feature level to certify (default {featurelevels.DEFAULT_LEVEL}); 'auto': "
                       "the level the device reports (backends that query it, e.g. dml-direct)")
    run_p.add_argument("--results", help="write JSON lines here (default results/<backend>.jsonl)")
    run_p.add_argument("--markdown", help="write a markdown summary here")
    run_p.add_argument("--json", help="write the summary as JSON here")
    run_p.add_argument("--save-failures", metavar="DIR", help="save inputs, outputs and model of each failure")
    run_p.add_argument("--quiet", action="store_true", help="no progress bar, and no word on a backend's slow "
                       "start or stop")
    run_p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                       help="threads that verify: a large tensor or a streamed sweep is checked in chunks "
                       "over N cores while the backend runs the next chunk (default 0: every usable core; "
                       "1: none). Results are identical and in the same order whatever N")
    from conformance.cli import dask_commands
    dask_commands.add_run_options(run_p)
    run_p.set_defaults(handler=cmd_run)

    list_p = sub.add_parser("list", help="list the expanded cases")
    case_options(list_p)
    list_p.add_argument("--verbose", "-v", action="store_true", help="also level, shape and source")
    list_p.set_defaults(handler=cmd_list)

    validate_p = sub.add_parser("validate", help="check case files without running anything")
    case_options(validate_p)
    validate_p.set_defaults(handler=cmd_validate)

    specs_p = sub.add_parser("specs", help="print operators' specs and feature-level tables")
    specs_p.add_argument("operators", nargs="*")
    specs_p.set_defaults(handler=cmd_specs)

    compile_p = sub.add_parser(
        "compile", help="build the verifier's compiled loops for these cases now, once a machine",
        description="Compile (numba, cached on disk) every loop a run of these cases will verify with, so "
                    "that the first run does not spend seconds per operator compiling inside its first chunks. "
                    "Default: the shipped sweeps (a checkout's sweeps/; installed, conformance/sweeps), "
                    "as the default cases are too small to use them. "
                    "scripts/gpu/device.sh setup runs it; a later run loads the cache.")
    case_options(compile_p)
    compile_p.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                           help="processes that compile, each taking the next operator, type and parameter set "
                           "(default 1; 0: one a usable core)")
    compile_p.set_defaults(handler=cmd_compile)

    backends_p = sub.add_parser("backends", help="list backends and which are available here")
    backends_p.set_defaults(handler=cmd_backends)

    from conformance.cli import bench_command as cli_bench, lane_commands as cli_lanes, report_commands as cli_reports
    from conformance.cli import dashboard_command as cli_dashboard, merge_command as cli_merge, store_command as cli_store
    for module in (cli_reports, cli_merge, cli_bench, cli_lanes, dask_commands):
        module.register(sub)
    cli_dashboard.register(cli_store.register(sub)[1])  # store add/query, then store html
    parser.commands = sub.choices  # name -> its parser, for _parse's messages
    return parser


def _load(args):
    return _select(args, _load_all(args))


def _load_all(args):
    """Every case of the case files, before -k."""
    tolerance = parse_tolerances(args.tolerance)
    return load_paths(args.paths or None, args.seed, args.max_elements, tolerance, args.forbid_flush)


def _select(args, cases):
    """The cases -k, --op, --smoke and --shard select; args.shard_entries: the header's record of the
    shard (shards.take), {} without --shard."""
    cases = choose(cases, args.keyword, args.ops, args.smoke)
    args.shard_entries = {}
    if args.shard is not None and cases:
        cases, args.shard_entries = shards.take(cases, args.shard)
    elif args.shard is not None:
        shards.parse(args.shard)  # a bad value is said before an empty selection
    for case in cases:
        if case.cut:  # said even under --quiet: the run is not the sweep the file asks for
            print(f"{case.source}: {case.id}: {case.cut}", file=sys.stderr)
    return cases


def _nothing_selected(args) -> str:
    """Why a selection is empty, naming the options that made it."""
    by = [f"--op {' --op '.join(args.ops)}" if args.ops else "", f"-k {args.keyword!r}" if args.keyword else ""]
    return ("no cases selected" + (f" by {' and '.join(b for b in by if b)}" if any(by) else "")
            + (" among the smoke cases" if args.smoke else ""))


def parse_tolerances(values):
    if not values:
        return None
    result = {}
    for value in values:
        key, _, number = value.rpartition("=")
        if not number.isdigit():
            raise BadInput(f"--tolerance {value!r}: expected ULP, DTYPE=ULP or OP:DTYPE=ULP")
        if not key:
            if len(values) == 1:
                return int(number)
            raise BadInput("--tolerance with a bare number cannot be combined with others")
        result[key] = int(number)
    return result


def parse_options(pairs, option: str = "--provider-option") -> dict:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise BadInput(f"{option} {pair!r}: expected KEY=VALUE")
        options[key] = value
    return options


def cmd_compile(args) -> int:
    from conformance.judge import precompile
    from conformance.caseset.caseload import SHIPPED_SWEEPS
    paths = args.paths or [str(SHIPPED_SWEEPS)]
    cases = _select(args, load_paths(paths, args.seed, args.max_elements, parse_tolerances(args.tolerance),
                                     args.forbid_flush))
    jobs = min(_jobs(args.jobs), len(precompile.kinds(cases)))
    if jobs <= 1:
        precompile.compile_for(cases)
        return 0
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),  # no inherited threads
                             initializer=_compiling_process, initargs=(os.getpid(),)) as pool:
        precompile.compile_for(cases, map_=pool.map, processes=jobs)
    return 0


def _compiling_process(parent: int):
    if sys.platform.startswith("linux"):
        from conformance.backends.wine_lane import die_with_parent
        die_with_parent()  # a killed `conformance compile` leaves no process compiling on
        if os.getppid() != parent:  # it died before the line above
            os._exit(1)
    from conformance.judge import fast_kernels
    fast_kernels.load()


def cmd_run(args) -> int:
    from conformance.judge import compiling
    from conformance.run import runner
    from conformance.run.progress import SaidIfSlow, progress_bar
    from conformance.run.results import ResultsWriter
    from reports import summary

    console = sys.stderr  # this one, also while _close holds what the backend writes
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=console, flush=True))
    auto_level = str(args.feature_level).lower() == "auto"
    level = None if auto_level else featurelevels.normalise(args.feature_level)
    loaded = _load_all(args)
    cases = _select(args, loaded)
    if not cases and not args.shard_entries:  # an empty part of a selection runs, for merge
        raise BadInput(_nothing_selected(args))
    jobs = _jobs(args.jobs)
    check_writable([("--results", args.results), ("--markdown", args.markdown), ("--json", args.json),
                    ("--html", args.html), ("--junit", args.junit)],
                   [("--save-failures", args.save_failures),
                    ("--results (default)", None if args.results else RESULTS_FOLDER)])
    loading = time.perf_counter() - args.started
    what = f"Dask workers of {args.dask}" if args.dask else backends.starting(args.backend)
    with SaidIfSlow(f"starting backend {args.backend}" + (f": {what}" if what else "") + " ...", say) as wait:
        if args.dask:
            from conformance.cli import dask_commands
            backend = dask_commands.engine(args, parse_options(args.provider_option), jobs, say)
        else:
            backend = backends.create(args.backend, parse_options(args.provider_option),
                                      announce=lambda m: print(m, file=sys.stderr))
    starting = time.perf_counter() - args.started - loading
    if wait.said:
        say(f"backend {backend.name} started in {starting:.1f} s; {plural(len(cases), 'case')} to run")
    try:
        if auto_level:
            level = _queried_level(backend)
        results_path = args.results or f"{RESULTS_FOLDER}/{backend.name.replace(':', '_')}.jsonl"
        replaced = not args.results and os.path.isfile(results_path) and os.path.getsize(results_path) > 0
        writer = ResultsWriter(results_path)
        if replaced:
            print(f"results: {results_path} is replaced by this run's (give --results PATH to keep a run's "
                  "results apart)", file=sys.stderr)
        header = runner.run_metadata(backend, level, args.seed, model=args.tolerance_model,
                                     case_files=runner.case_files(cases, loaded))
        header.update(args.shard_entries)
        writer.write(header)
        bar = progress_bar(len(cases), enabled=not args.quiet)
        compiling.announcer = bar.write  # a first run's compiles are said, not a silent wait
        try:
            if args.dask:
                result = backend.run(cases, level, writer, progress=bar.update, model=args.tolerance_model)
            else:
                result = runner.run(cases, backend, level, writer, progress=bar.update,
                                    save_failures=args.save_failures, jobs=jobs, model=args.tolerance_model)
        finally:
            compiling.announcer = None
            bar.close()
        # the footer before the backend's close: a Ctrl-C while workers shut down loses no record of
        # how the run ended, and the report does not call a finished run a crash
        footer = {"type": "footer", "seconds": round(result.seconds, 3), "cases": len(result.records),
                  "sessions_created": result.sessions_created, "interrupted": result.interrupted,
                  "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "wall_seconds": round(time.perf_counter() - args.started, 3),
                  "backend_start_seconds": round(starting, 3)}
        writer.write(footer)
        writer.close()
    finally:
        with SaidIfSlow(f"stopping backend {backend.name} ...", say):
            closing = _close(backend)
    waited = time.perf_counter() - args.started
    # the summary's time is the user's wait; the footer's "seconds" stays the cases' own (benchmarks read it)
    print(summary.text(header, result.records, {**footer, "seconds": waited}))
    print(f"time: {waited:.1f} s from the command's start: loading the cases {loading:.1f} s, starting the "
          f"backend {starting:.1f} s, running and verifying the cases {result.seconds:.1f} s")
    note = refusal_note(result.records)
    if note:
        print(note)
    print(f"results: {results_path}")
    if closing:
        sys.stdout.flush()  # the summary first where both streams go to one file
        print(closing, end="", file=sys.stderr)
    write_reports(header, result.records, footer, html=args.html, markdown=args.markdown, junit=args.junit)
    if args.json:
        from conformance.judge.verdicts import operator_rows
        summary_header = {key: value for key, value in header.items() if key != "case_files"}
        write(args.json, json.dumps({"header": summary_header, "operators": operator_rows(result.records),
                                     "footer": footer}, indent=2))
    if result.interrupted:
        if _TERMINATED.is_set():
            print("terminated (SIGTERM): the results so far are kept", file=sys.stderr)
            return exitcodes.TERMINATED
        return exitcodes.INTERRUPTED
    return exitcodes.NOT_CONFORMANT if result.failed else exitcodes.CONFORMANT


def _close(backend) -> str:
    """Close backend, holding what it writes to stderr meanwhile (a worker backend's statistics:
    worker starts, operators compiled) for after the run's summary, where it belongs."""
    import contextlib
    import io
    held = io.StringIO()
    try:
        with contextlib.redirect_stderr(held):
            backend.close()
    except BaseException:
        print(held.getvalue(), end="", file=sys.stderr)
        raise
    return held.getvalue()


# Where the documentation explains DirectML's own refusal of a required case (CreateOperator or
# CompileOperator answering E_INVALIDARG): what the status means, and the refusals seen so far.
REFUSAL_DOCS = "docs/dml-direct.md (Statuses) and docs/several-inputs-lavapipe.md (Findings)"


def refusal_note(records) -> str | None:
    """One line pointing to the explanation when DirectML itself refused cases the level requires."""
    from conformance import statuses
    refused = [r for r in records if r["status"] == statuses.UNSUPPORTED_REQUIRED
               and "refused the description" in (r.get("message") or "")]
    if not refused:
        return None
    return (f"note: DirectML refused {plural(len(refused), 'required case')} (e.g. {refused[0]['id']}); "
            f"why, and the refusals known per device: {REFUSAL_DOCS}")


def _queried_level(backend) -> str:
    """--feature-level auto: the highest level the device itself reports (DML_FEATURE_FEATURE_LEVELS),
    from the backend's metadata()['feature_level_max']."""
    queried = backend.metadata().get("feature_level_max")
    if not queried:
        raise BadInput(f"--feature-level auto: backend {backend.name} does not report the device's "
                       "feature level; name a level instead")
    level = featurelevels.normalise(queried)
    print(f"feature level auto: {level} (reported by the device)", file=sys.stderr)
    return level


def _jobs(value: int) -> int:
    if value < 0:
        raise BadInput(f"--jobs {value}: expected 0 (every usable core) or a positive number")
    from conformance.judge.fast import usable_cpus
    return value or usable_cpus()


def cmd_list(args) -> int:
    for case in _load(args):
        if args.verbose:
            print(f"{case.id}\tFL {case.required_level}\tshape {list(case.shape)}\tseed {case.seed}\t{case.source}")
        else:
            print(case.id)
    return exitcodes.CONFORMANT


def cmd_validate(args) -> int:
    cases = _load(args)
    by_op = {}
    for case in cases:
        by_op[case.op] = by_op.get(case.op, 0) + 1
    print(f"ok: {plural(len(cases), 'case')} (" + ", ".join(f"{op} {n}" for op, n in sorted(by_op.items())) + ")")
    return exitcodes.CONFORMANT


def cmd_specs(args) -> int:
    names = args.operators or list(specs.SPECS)
    for name in names:
        try:
            spec = specs.get(name)
        except KeyError as error:
            raise BadInput(error.args[0]) from None
        print(f"{spec.struct}\n  {spec.summary}\n  formula: {spec.formula}\n  introduced: "
              f"DML_FEATURE_LEVEL_{spec.introduced}; in-place: {'yes' if spec.in_place else 'no'}; "
              f"family: {spec.family.name}")
        print(f"  constraints: {spec.constraints}")
        print("  parameters: " + "; ".join(f"{p.name} ({p.kind}, default {p.default})" for p in spec.parameters))
        if spec.ulp_tolerance is not None:
            print(f"  tolerance (ULP): per case, {spec.ulp_tolerance.__doc__ or 'by the ulp model'}; integer types exact")
        else:
            print("  tolerance (ULP): " + ", ".join(f"{d} {u}" for d, u in spec.tolerance_ulp.items())
                  + "; integer types exact")
        print(f"  through ONNX Runtime: {spec.onnx_route}")
        for label, tables, chosen_fields in _table_groups(spec):
            if label:
                print(f"  tables for {label}:")
            _print_tables(spec, tables, chosen_fields)
        from conformance.judge import accumulated
        shipped = _shipped_cases(spec)
        if spec.accumulation:
            lines = accumulated.explain(spec, _worked_case(spec, shipped))
        else:
            from conformance.judge.d3d import explain
            lines = explain(spec, "float32" if "float32" in spec.dtypes else spec.dtypes[0])
        if shipped and not any("worked" in line for line in lines):  # judged exactly or by its bounds
            lines += accumulated.exact_example(spec, shipped[0])
        print("\n".join(lines))
        for note in spec.notes:
            print(f"  note: {note}")
        print(f"  source: {spec.source}\n")
    return exitcodes.CONFORMANT


def _table_groups(spec) -> list:
    """(label, tables, the fields that choose them) per set of tables: one, or where the fields choose the
    tables (REDUCE's Function), one per set of values of an enum field that share them."""
    if spec.tables_by_fields is None:
        return [("", spec.tables, {})]
    groups = {}
    for p in spec.parameters:
        if p.kind != "enum":
            continue
        for choice in p.choices:
            fields = {**spec.defaults(), p.name: choice}
            groups.setdefault(spec.tables_for(fields), []).append((choice, fields))
        if len(groups) > 1:
            break
        groups = {}
    return [(", ".join(c for c, _ in chosen), tables, chosen[0][1]) for tables, chosen in groups.items()]


def _print_tables(spec, tables, fields: dict):
    from tabulate import tabulate
    import oracle
    rows = [[f"DML_FEATURE_LEVEL_{t.level}",
             "; ".join([_ranks(t.ranks)] + [f"{name} {_ranks(ranks)}" for name, ranks in t.tensor_ranks]),
             ", ".join(d.upper() for d in t.dtypes)] for t in tables]
    headers = ["from level", "dimension counts", "data types"]
    chosen = next((p for p in spec.parameters if p.kind == "tensor_type" and "OutputTensor" in p.tensors), None)
    if chosen is not None and fields and all(oracle.output_dtype(spec.name, d, **fields) == d for d in spec.dtypes):
        chosen = None  # these field values leave the output its input's type (REDUCE's SUM)
    if chosen is not None:  # the case chooses it (OutputType): each choice the table's level allows
        for row, table in zip(rows, tables):
            row.append(", ".join(c.upper() for c in chosen.choices
                                 if _allowed_at(spec, chosen, c, table.level, fields)) + f" ({chosen.name})")
        headers.append("output data type")
    elif any(spec.output_dtype(d) != d for d in spec.dtypes):
        for row, table in zip(rows, tables):
            row.append(", ".join(sorted({spec.output_dtype(d).upper() for d in table.dtypes})))
        headers.append("output data type")
    for output in spec.outputs[1:]:  # several outputs (TOP_K's OutputIndexTensor): each one's types
        chooser = next((p for p in spec.parameters if p.kind == "tensor_type" and output.name in p.tensors), None)
        for row, table in zip(rows, tables):
            types = [c for c in chooser.choices if _allowed_at(spec, chooser, c, table.level)] if chooser \
                else sorted({spec.tensor_type(output.name, d) for d in table.dtypes})
            row.append(", ".join(t.upper() for t in types))
        headers.append(f"{output.name} data type")
    print(tabulate(rows, headers=headers))


def _shipped_cases(spec) -> list:
    """The cases of the operator's shipped case file (none: no file)."""
    from conformance.caseset import caseload
    path = caseload.SHIPPED_CASES / f"{spec.name.lower()}.yaml"
    return caseload.load_file(path) if path.is_file() else []


def _worked_case(spec, cases):
    """The first of these cases of a float output with a formula to judge by (None: none;
    MATRIX_MULTIPLY_INTEGER_TO_FLOAT's integer inputs give float outputs)."""
    return next((c for c in cases if spec.accumulation_for(c.params)
                 and spec.tensor_type(spec.outputs_for(c.params)[0].name, c.dtype, c.params) in ("float32", "float16")),
                None)


def _allowed_at(spec, parameter, value, level: str, fields=None) -> bool:
    """Whether the pages allow this value of the field at this feature level (spec.parameter_level), with
    these other field values (REDUCE's Function)."""
    from conformance import featurelevels
    chosen = {**spec.defaults(), **(fields or {}), parameter.name: value}
    needed = spec.parameter_level(chosen) if spec.parameter_level else None
    return needed is None or featurelevels.at_least(level, needed)


def _ranks(ranks) -> str:
    ranks = sorted(ranks)
    if ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 1:
        return f"{ranks[0]} to {ranks[-1]}"
    return ", ".join(map(str, ranks))


def cmd_backends(args) -> int:
    chosen, reason = backends.choose_auto()
    for name in backends.names():
        if ":" in name or name == "auto":
            print(f"  {name}")
            continue
        try:
            backend = backends.create(name, announce=lambda m: None)
            _close(backend)  # what it says of its work: none was done
            print(f"  {name}: available")
        except backends.BackendUnavailable as error:
            print(f"  {name}: unavailable ({error})")
    print(f"auto -> {chosen} ({reason})")
    return exitcodes.CONFORMANT


if __name__ == "__main__":
    sys.exit(main())
