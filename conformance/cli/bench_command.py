"""`conformance bench`: the harness's speed, measured side by side (see conformance/cli/bench.py)."""

from conformance.cli.bench_sections import SECTIONS


def register(subparsers):
    bench = subparsers.add_parser(
        "bench", help="measure verification throughput, small-case rate, sweep scaling, end to end and --jobs",
        description="Measure, in one run and side by side: oracle + comparison throughput against ONNX "
                    "Runtime's CPU provider, the default cases per second against one session per case, "
                    "an exhaustive float32 sweep from 2**20 to 2**32 elements (time, peak RSS), "
                    "`conformance run --backend cpu` end to end against the CPU provider alone (where "
                    "elements pass and where every element is off), and --jobs. Prints a table; "
                    "docs/performance.md has figures from a 2-core machine.")
    bench.add_argument("--quick", action="store_true",
                       help="skip the full 2**32 sweep (stop at 2**28); end to end on 2**24 elements, not 2**28")
    bench.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                       help="verification threads (default 0: every usable core)")
    bench.add_argument("--repeats", type=int, default=3, help="timed repeats per figure; the best counts")
    bench.add_argument("--only", action="append", choices=SECTIONS, metavar="SECTION",
                       help=f"measure only this section (again for more): {', '.join(SECTIONS)}")
    bench.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    bench.set_defaults(handler=_cmd_bench)


def _cmd_bench(args) -> int:
    from conformance.cli import bench
    bench.run(quick=args.quick, jobs=args.jobs, repeats=max(1, args.repeats), json_path=args.json, only=args.only)
    return 0
