"""The project's own test suite, timed per test file: the figures that show a regression in test time
the way `conformance bench` shows one in speed.

    python3 scripts/test_times.py                        # run the suite (pytest, as given), then the table
    python3 scripts/test_times.py -- tests/test_d3d.py   # arguments after -- go to pytest
    python3 scripts/test_times.py TESTS.xml              # the table of a finished run (pytest --junitxml)
    python3 scripts/test_times.py NEW.xml --baseline OLD.xml   # and the change per file

Per file: its tests, the seconds they took (summed: under pytest-xdist the files share the cores, so
the sum is the file's cost, not the wall time it held), its share of the suite and its slowest test.
.ci/run prints this table after every CI run. Only the standard library: it reads JUnit XML.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def per_file(path: str) -> dict:
    """{file: [tests, seconds, (slowest seconds, slowest name)]} of a JUnit XML file."""
    files = defaultdict(lambda: [0, 0.0, (0.0, "")])
    for case in ET.parse(path).getroot().iter("testcase"):
        name = (case.get("classname") or "").split(".")
        module = "/".join(part for part in name if not part[:1].isupper()) + ".py"
        seconds = float(case.get("time") or 0)
        entry = files[module]
        entry[0] += 1
        entry[1] += seconds
        entry[2] = max(entry[2], (seconds, case.get("name") or ""))
    return dict(files)


def table(files: dict, baseline: dict | None = None, top: int = 0) -> str:
    total = sum(e[1] for e in files.values()) or 1.0
    rows = sorted(files.items(), key=lambda kv: -kv[1][1])
    lines = [f"{'file':42} {'tests':>6} {'seconds':>9} {'share':>6}"
             + (f" {'before':>9} {'change':>8}" if baseline is not None else "") + "  slowest test"]
    for name, (count, seconds, (slow, slowest)) in rows[:top or None]:
        line = f"{name:42} {count:6d} {seconds:9.1f} {seconds / total:6.1%}"
        if baseline is not None:
            before = baseline.get(name, [0, 0.0])[1]
            line += f" {before:9.1f} {seconds - before:+8.1f}"
        lines.append(line + f"  {slow:.1f} s {slowest[:70]}")
    count = sum(e[0] for e in files.values())
    line = f"{'all':42} {count:6d} {total:9.1f} {1:6.0%}"
    if baseline is not None:
        before = sum(e[1] for e in baseline.values())
        line += f" {before:9.1f} {total - before:+8.1f}"
    return "\n".join(lines + [line])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit", nargs="?", help="a finished run's pytest --junitxml file (default: run the suite)")
    parser.add_argument("--baseline", help="an earlier run's JUnit XML: the change per file")
    parser.add_argument("--top", type=int, default=0, help="only the N costliest files")
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    status = 0
    path = args.junit
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="dmlc-test-times-"), "tests.xml")
        python = os.path.join(ROOT, ".venv", "bin", "python")
        command = [python if os.path.exists(python) else sys.executable, "-m", "pytest", "-q",
                   f"--junitxml={path}", *extra]
        status = subprocess.run(command, cwd=ROOT).returncode
    try:
        files = per_file(path)
    except (OSError, ET.ParseError) as error:
        print(f"test_times: cannot read {path}: {error}", file=sys.stderr)
        return 2
    baseline = per_file(args.baseline) if args.baseline else None
    print(table(files, baseline, args.top))
    return status


if __name__ == "__main__":
    sys.exit(main())
