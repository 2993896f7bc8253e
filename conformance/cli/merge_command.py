"""`conformance merge`: the results of a sharded run's parts as one run's (conformance/run/merge.py).

    conformance merge PART.jsonl... --results OUT.jsonl [--markdown F] [--html F] [--junit F] [--allow-partial]
        exit 0 or 1 as the whole run's verdict; 2 where the parts are refused
"""
from conformance import statuses
from conformance.cli import exitcodes
from conformance.cli.outputs import add_report_options, check_writable, report_outputs, write, write_reports
from conformance.errors import BadInput


def register(subparsers):
    merge = subparsers.add_parser("merge", help="join the results of a run's shards (run --shard K/N) into one "
                                  "results file, as one run of every case writes it")
    merge.add_argument("parts", nargs="+", metavar="PART", help="the results file of each shard, in any order")
    merge.add_argument("--results", required=True, help="write the merged JSON lines here")
    add_report_options(merge)
    merge.add_argument("--allow-partial", action="store_true",
                       help="merge parts cut short (interrupted, killed) with what they hold; the merged footer "
                       "then says interrupted")
    merge.set_defaults(handler=cmd_merge)


def cmd_merge(args) -> int:
    from conformance.run.merge import merge
    from conformance.run.results import encode
    from reports import summary
    if str(args.results).endswith(".gz"):
        raise BadInput(f"--results {args.results}: merge writes plain JSON lines; gzip the file afterwards")
    check_writable([("--results", args.results), *report_outputs(args)])
    header, records, footer = merge(args.parts, allow_partial=args.allow_partial)
    write(args.results, "".join(encode(line) + "\n" for line in [header, *records, footer]))
    print(summary.text(header, records, footer))
    write_reports(header, records, footer, html=args.html, markdown=args.markdown, junit=args.junit)
    failed = any(record["status"] in statuses.FAILING for record in records)
    return exitcodes.NOT_CONFORMANT if failed else exitcodes.CONFORMANT
