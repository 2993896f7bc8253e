"""What a DirectML session costs the dml-wine worker: one float32 case of each of the first N
operators, each in a round trip of its own (one new session each), and after each the worker's
peak resident size (VmHWM, from /proc), its starts and the seconds the round trip took.

    python scripts/dml_wine/session_memory.py [--sessions N] [--provider-option KEY=VALUE ...]

e.g. `--provider-option vkd3d_config=` (vkd3d's descriptor heaps as they are: ~1.45 GiB a session on
lavapipe) against the default (virtual heaps: tens of MB), or `ep.dml.disable_memory_arena=1`.
docs/performance.md, "dml-wine's memory", has the figures.
"""
import argparse
import sys
import time

from conformance.backends import dml_wine, procmem
from conformance.backends.base import Outcome
from conformance.backends.ort import case_node
from conformance.caseset.caseload import load_paths


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--provider-option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    bad = [item for item in args.provider_option if "=" not in item]
    if bad:
        print(f"session_memory: --provider-option {bad[0]!r}: expected KEY=VALUE", file=sys.stderr)
        return 2
    options = dict(item.split("=", 1) for item in args.provider_option)
    ready, why = dml_wine.dml_wine.available()
    if not ready:
        print(f"session_memory: the dml-wine lane is missing: {why}", file=sys.stderr)
        return 2
    chosen = {}
    for case in load_paths(["cases"], 0):
        if case.dtype == "float32" and case.op not in chosen and not isinstance(case_node(case), Outcome):
            chosen[case.op] = case
    backend = dml_wine.dml_wine("dml-wine", options)
    try:
        print(f"budget {backend.memory_budget >> 20} MiB, vkd3d_config={backend.metadata()['worker'].get('vkd3d_config')!r}")
        for case in list(chosen.values())[:args.sessions]:
            started = time.perf_counter()
            outcome = backend.run_many([(case, case.make_input())])[0]
            peak = max((procmem.proc_bytes(f"/proc/{pid}/status", "VmHWM") or 0 for pid in backend.worker_pids()),
                       default=0)
            print(f"{case.op:32} {outcome.status:14} {time.perf_counter() - started:6.2f} s  VmHWM {peak >> 20:6} MiB  "
                  f"worker starts {backend.worker_starts}, sessions {backend.sessions_created}")
    finally:
        backend.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
