"""`conformance lane ...`: the dml-wine lane (the real DirectML under Wine) from the command line.

    conformance lane status [--start]   is the lane provisioned, with which versions; --start also
                                        starts a worker and prints what it reports
    conformance lane smoke [RUN OPTIONS] the DirectML smoke suite (what CI runs) through dml-wine
"""
import json
import sys


def register(subparsers):
    lane = subparsers.add_parser("lane", help="the dml-wine lane: status and smoke suite")
    actions = lane.add_subparsers(dest="lane_command")
    status = actions.add_parser("status", help="is the dml-wine lane provisioned, with which versions")
    status.add_argument("--start", action="store_true", help="also start a worker and print its report")
    status.set_defaults(handler=cmd_status)
    smoke = actions.add_parser("smoke", help="run the DirectML smoke suite through dml-wine")
    smoke.add_argument("--backend", default="dml-wine")
    smoke.add_argument("--results", default="results/dml-wine-smoke.jsonl")
    smoke.add_argument("--markdown")
    smoke.add_argument("--provider-option", action="append", default=[], metavar="KEY=VALUE")
    smoke.add_argument("--quiet", action="store_true")
    smoke.set_defaults(handler=cmd_smoke)
    lane.set_defaults(handler=lambda args: (lane.print_help(), 2)[1])


def cmd_status(args) -> int:
    from conformance.backends import dml_wine
    found, reason = dml_wine.find_lane()
    if found is None:
        print(f"dml-wine: not ready: {reason}")
        return 3
    marker = found.marker
    print(f"dml-wine: provisioned in {found.home} ({marker.get('provisioned')})")
    for key in ("wine", "mesa_vulkan_drivers", "vulkan_device", "windows_python", "onnxruntime", "numpy",
                "directml_dll", "adapter", "dml_max_feature_level", "pins"):
        print(f"  {key}: {marker.get(key)}")
    from conformance import dml_releases
    print("releases (bash scripts/setup-dml-wine.sh --releases all; --provider-option dml_release=V):")
    for release in dml_releases.releases():
        ready, record = dml_releases.provisioned(found.home, release)
        state = (f"provisioned: Windows Python {record.get('windows_python')}, feature level "
                 f"{record.get('dml_max_feature_level')}" if ready else "not provisioned")
        print(f"  {release.onnxruntime} (DirectML {dml_releases.short(release.directml)}): {state}")
    if args.start:
        from conformance import backends
        backend = backends.create("dml-wine", announce=lambda m: None)
        try:
            print(json.dumps(backend.metadata(), indent=1, default=str))
        finally:
            backend.close()
    return 0


def cmd_smoke(args) -> int:
    from conformance import cli
    argv = ["run", "--backend", args.backend, "--smoke", "--results", args.results]
    if args.markdown:
        argv += ["--markdown", args.markdown]
    for option in args.provider_option:
        argv += ["--provider-option", option]
    if args.quiet:
        argv.append("--quiet")
    print(f"smoke suite: conformance {' '.join(argv[:4])} (each case file's `smoke` cases) ...", file=sys.stderr)
    return cli.main(argv)
