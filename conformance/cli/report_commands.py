"""`conformance report`, `conformance diff`, `conformance compare`, and --html / --junit on `run`.

    conformance report RESULTS.jsonl [--html F] [--markdown F] [--junit F]
    conformance diff A.jsonl B.jsonl [--html F] [--markdown F] [--allow-missing]
                                         exit 1 on a regression or a case B lacks
    conformance compare A.jsonl B.jsonl [C.jsonl ...] [--html F] [--markdown F]
"""
import sys
from pathlib import Path

from conformance.cli import exitcodes
from conformance.cli.outputs import add_report_options, check_writable, report_outputs, write, write_reports
from conformance.errors import BadInput
from conformance.run.results import partial, read_results



def register(subparsers):
    run = subparsers.choices.get("run")
    if run is not None:  # --markdown is run's own (it came first); outputs.write_reports writes all three
        run.add_argument("--html", help="write the HTML report here (one self-contained file)")
        run.add_argument("--junit", help="write JUnit XML here, for CI systems")

    report = subparsers.add_parser("report", help="render reports from a saved results file")
    report.add_argument("results", help="a JSON lines results file (conformance run --results)")
    add_report_options(report)
    report.set_defaults(handler=cmd_report)

    diff = subparsers.add_parser("diff", help="cases whose status or max ULP changed between two runs "
                                 "(exit 1 on a regression, or on cases of A that B lacks)")
    diff.add_argument("a", help="the results before (e.g. the old driver)")
    diff.add_argument("b", help="the results after")
    diff.add_argument("--html", help="write the diff as HTML here")
    diff.add_argument("--markdown", help="write the diff as markdown here")
    diff.add_argument("--limit", type=int, default=50, help="changes printed per kind (default 50; 0: all)")
    diff.add_argument("--allow-missing", action="store_true",
                      help="cases of A that B lacks do not fail the comparison (B ran a smaller selection)")
    diff.set_defaults(handler=cmd_diff)

    compare = subparsers.add_parser("compare", help="several runs of the same cases side by side, as one matrix")
    compare.add_argument("results", nargs="+", help="two or more results files (dml, cpu, webgpu ...)")
    compare.add_argument("--html", help="write the comparison as HTML here")
    compare.add_argument("--markdown", help="write the comparison as markdown here")
    compare.add_argument("--releases", action="store_true",
                         help="runs of several DirectML releases: order and label them by the DirectML.dll each "
                         "loaded, and list what changed between consecutive releases of each backend")
    compare.set_defaults(handler=cmd_compare)


def _read(path):
    if not Path(path).is_file():
        raise BadInput(f"{path}: no such results file")
    header, records, footer = read_results(path)
    if not header and not records:
        raise BadInput(f"{path}: not a results file (no header, no cases)")
    if header.get("truncated_line"):
        print(f"warning: {path}:{header['truncated_line']}: the last line is cut short (the run died while "
              "writing it) and is skipped", file=sys.stderr)
    reason = partial(header, footer)
    if reason:
        unfinished = header.get("unfinished", [])
        print(f"warning: {path} is partial: {reason}"
              + (f"; {len(unfinished)} case(s) the backend was running never finished:" if unfinished else ""),
              *(f"  {case_id}" for case_id in unfinished), sep="\n", file=sys.stderr)
    return header, records, footer


def _check_outputs(args):
    check_writable(report_outputs(args))


def cmd_report(args) -> int:
    from reports import summary
    _check_outputs(args)
    header, records, footer = _read(args.results)
    if not (args.html or args.markdown or args.junit):
        print(summary.text(header, records, footer or {}))
    write_reports(header, records, footer, html=args.html, markdown=args.markdown, junit=args.junit)
    return exitcodes.CONFORMANT


def cmd_diff(args) -> int:
    from reports import diff, html, markdown
    _check_outputs(args)
    for path in (args.a, args.b):
        _read(path)
    result = diff.diff_files(args.a, args.b, allow_missing=args.allow_missing)
    print(text_diff(result, args.limit))
    if args.html:
        write(args.html, html.render_diff(result))
    if args.markdown:
        for path, text in markdown.fitted(args.markdown, markdown.diff(result)):
            write(path, text)
    return exitcodes.NOT_CONFORMANT if result.failed else exitcodes.CONFORMANT


def text_diff(result, limit=50) -> str:
    from tabulate import tabulate
    lines = [f"WARNING: {note}" for note in result.warnings()]
    lines += [f"A: {result.name_a} ({result.header_a.get('backend')}, {result.header_a.get('device')})",
              f"B: {result.name_b} ({result.header_b.get('backend')}, {result.header_b.get('device')})"]
    for kind, items in result.by_kind():
        shown = items[:limit] if limit else items
        rows = [[c.id, _cell(c.before), _cell(c.after)] for c in shown]
        lines += ["", f"{kind} ({len(items)}):", tabulate(rows, headers=["case", "A", "B"], disable_numparse=True)]
        if len(shown) < len(items):
            lines.append(f"  ... and {len(items) - len(shown)} more (--limit 0 shows all)")
    lines += ["", f"{len(result.regressions)} regression(s): {result.summary()}"]
    if result.missing:
        lines.append(result.verdict() + ("" if result.allow_missing else " (--allow-missing accepts a smaller B)"))
    return "\n".join(lines)


def _cell(record) -> str:
    if record is None:
        return "-"
    ulp = record.get("max_ulp")
    return record["status"] + (f" ({ulp} ULP)" if ulp is not None else "")


def cmd_compare(args) -> int:
    from tabulate import tabulate

    from reports import html, markdown, releases, sidebyside
    if len(args.results) < 2:
        raise BadInput("compare needs two or more results files")
    _check_outputs(args)
    for path in args.results:
        _read(path)
    result = (releases.compare_files if args.releases else sidebyside.compare_files)(args.results)
    rows = [[op, dtype, level] + [c.headline if c else "-" for c in cells] for op, dtype, level, cells in result.rows]
    print(tabulate(rows, headers=["operator", "data type", "FL"] + result.labels, disable_numparse=True))
    print(f"\n{len(result.differing)} case(s) differ between the runs")
    for step in result.steps:
        print(f"\n{step.before.label} -> {step.after.label}: {len(step.diff.regressions)} regression(s); "
              f"{step.diff.summary()}")
        for change in step.diff.regressions:
            print(f"  regression: {change.id}: {_cell(change.before)} -> {_cell(change.after)}")
    if args.html:
        write(args.html, html.render_compare(result))
    if args.markdown:
        for path, text in markdown.fitted(args.markdown, markdown.compare(result)):
            write(path, text)
    return exitcodes.CONFORMANT
