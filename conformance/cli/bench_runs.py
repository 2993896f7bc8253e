"""`conformance run` in a process of its own, for the benchmark's sweep and end-to-end sections."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conformance.backends.wine_lane import die_with_parent

# A bench killed (even by SIGKILL) takes its child run with it.
CHILD_DIES_WITH_BENCH = None if os.name == "nt" else die_with_parent


# `conformance` in a child process that reports its own peak RSS (Linux VmHWM: the child's
# own address space, unlike wait4's ru_maxrss, which starts from the parent's at fork).
_CHILD = """import sys
from conformance.cli.command import main
code = main(sys.argv[1:])
try:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                sys.stderr.write("VmHWM_KB=" + line.split()[1] + "\\n")
except OSError:
    pass
sys.exit(code)
"""

def sweep_file(op: str, params: dict, generator: str) -> str:
    """A case file of one float32 case: op with params (JSON is YAML), inputs from generator."""
    fields = json.dumps({k: v for k, v in params.items() if v is not None})
    return (f"operator: {op}\ngroups:\n  - dtypes: [float32]\n    shapes: [auto]\n    params: {fields}\n"
            f"    inputs:\n      - {generator}\n")


def conformance_run(case_file: Path, jobs: int) -> dict:
    """`conformance run case_file --backend cpu` in a process of its own: its wall seconds, its peak
    RSS, the (first) case record and the footer of its results."""
    results = case_file.with_suffix(".jsonl")
    command = [sys.executable, "-c", _CHILD, "run", str(case_file), "--backend", "cpu", "--quiet",
               "--results", str(results), "--jobs", str(jobs)]
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=CHILD_DIES_WITH_BENCH)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    lines = results.read_text().splitlines() if results.exists() else []
    results.unlink(missing_ok=True)
    peak = usage.ru_maxrss * 1024  # also counts the RSS this process had when it forked: a fallback
    for line in error.splitlines():
        if line.startswith("VmHWM_KB="):
            peak = int(line.split("=", 1)[1]) * 1024
    parsed = [json.loads(line) for line in lines if line.strip()]
    record = next((r for r in parsed if r.get("type") == "case"), {})
    footer = next((r for r in parsed if r.get("type") == "footer"), {})
    if process.returncode not in (0, 1) or not record:
        raise RuntimeError(f"conformance run {case_file.name} failed (exit {process.returncode}): {error[-500:]}")
    return {"wall": wall, "peak_rss_mib": peak / 2**20, "record": record, "footer": footer}
