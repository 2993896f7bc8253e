"""`conformance lane ...`: the dml-wine lane (the real DirectML under Wine) from the command line.

    conformance lane status [--start]   is the lane provisioned, with which versions; --start also
                                        starts a worker and prints what it reports
    conformance lane smoke [RUN OPTIONS] the DirectML smoke suite (what CI runs) through dml-wine
    conformance lane windows [-- ARGS]  the Windows harness (this package pip-installed into a Windows
                                        Python under the lane's Wine): without ARGS what is provisioned;
                                        `-- run --backend dml ...` runs its conformance.exe, `-- python
                                        -m pytest ...` its python.exe, `-- pip list` its pip.exe
"""
import argparse
import json
import sys

from conformance.cli import exitcodes


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
    windows = actions.add_parser("windows", help="run the Windows harness (pip-installed, under Wine)",
                                 description="Runs a program of the Windows harness under the lane's Wine, "
                                 "display and Vulkan device, in this folder (drive Z:); absolute paths among "
                                 "ARGS become Z:\\ paths. Exit code: the program's (124 after --timeout).")
    windows.add_argument("--python-dir", help="a Windows Python folder to use instead of the provisioned "
                         "harness (scripts/setup-windows-harness.sh uses it while provisioning)")
    windows.add_argument("--timeout", type=float, help="end the program after this many seconds")
    windows.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- ARGS",
                         help="conformance ARGS, or python/pytest/pip ARGS")
    windows.set_defaults(handler=cmd_windows)
    lane.set_defaults(handler=lambda args: (lane.print_help(), 2)[1])


def cmd_status(args) -> int:
    from conformance.backends import dml_wine
    found, reason = dml_wine.find_lane()
    if found is None:
        print(f"dml-wine: not ready: {reason}")
        return exitcodes.BACKEND_UNAVAILABLE
    marker = found.marker
    print(f"dml-wine: provisioned in {found.home} ({marker.get('provisioned')})")
    for key in ("wine", "mesa_vulkan_drivers", "vulkan_device", "windows_python", "onnxruntime", "numpy",
                "directml_dll", "adapter", "dml_max_feature_level", "pins"):
        print(f"  {key}: {marker.get(key)}")
    from conformance.backends import dml_releases
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
    argv = ["run", "--backend", args.backend, "--smoke", "--results", args.results]
    if args.markdown:
        argv += ["--markdown", args.markdown]
    for option in args.provider_option:
        argv += ["--provider-option", option]
    if args.quiet:
        argv.append("--quiet")
    print(f"smoke suite: conformance {' '.join(argv[:4])} (each case file's `smoke` cases) ...", file=sys.stderr)
    return args.main(argv)


def cmd_windows(args) -> int:
    from conformance.backends import wine_lane
    from conformance.cli import windows_harness
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if args.python_dir:
        lane, reason = wine_lane.find_lane()
        python_dir = args.python_dir
    else:
        harness, reason = windows_harness.find_harness()
        lane, python_dir = (harness.lane, harness.python_dir) if harness else (None, None)
    if lane is None:
        print(f"windows harness: not ready: {reason}", file=sys.stderr)
        return exitcodes.BACKEND_UNAVAILABLE
    if not argv:
        if args.python_dir:
            print(f"windows harness: Windows Python {python_dir} in the lane {lane.home}")
        else:
            print(f"windows harness: provisioned in {harness.home} ({harness.marker.get('provisioned')})")
            for key, value in harness.marker.items():
                if key not in ("format", "provisioned"):
                    print(f"  {key}: {value}")
        return 0
    return windows_harness.run(lane, python_dir, argv, timeout=args.timeout)
