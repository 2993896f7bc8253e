"""How verification of elements off the exactly rounded value scales with threads.

    python scripts/verify_threads.py --op OPERATOR [--params JSON] [--elements N] [--threads 1,2,4,8,16]

e.g. --op ACTIVATION_CELU --params '{"Alpha": 1.0}': the operator on N negative float32 inputs, the device's output one ULP up on every
other element (as DirectML's exp gives on a GPU): each such element gets its d3d interval. Prints
the best of three `Verifier(jobs=J).check` per thread count, and the phases of one span on one
thread (cProfile, the top entries).
"""
import argparse
import cProfile
import json
import os
import pstats
import time

import numpy as np

from conformance.caseset.case import Case
from conformance.judge import fast, fast_kernels
from conformance.run import runner


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", required=True, help="a one-input float32 operator with a d3d formula")
    parser.add_argument("--params", default="{}", help="its parameters, as JSON")
    parser.add_argument("--elements", type=int, default=1 << 22)
    parser.add_argument("--threads", default=f"1,2,4,8,{os.cpu_count()}")
    args = parser.parse_args()
    fast_kernels.load()
    n = args.elements
    x = np.arange(0x80000000, 0x80000000 + n * 64, 64, dtype=np.uint64).astype(np.uint32).view(np.float32)
    case = Case(id=f"{args.op}/float32/threads", op=args.op, dtype="float32", shape=x.shape,
                params=json.loads(args.params), generator={"kind": "uniform"}, required_level="3_0", tolerance=18,
                flush_allowed=True, nan_rule="d3d")
    expected, _, _ = runner.expected_for(case, x)
    actual = expected.copy()
    actual.view(np.uint32)[::2] += 1
    print(f"{os.cpu_count()} cores; {n:,} elements, {n // 2:,} off the exact value")
    for jobs in (int(j) for j in args.threads.split(",")):
        with fast.Verifier(jobs=jobs, kernel="always") as verifier:
            verifier.check(case, x[:1 << 16], actual[:1 << 16])
            best = min(_timed(verifier, case, x, actual) for _ in range(3))
        print(f"  {jobs:>3} thread(s): {best * 1e3:8.1f} ms, {best / n * 1e9 * jobs:6.0f} ns an element a thread")
    with fast.Verifier(jobs=1, kernel="always") as verifier:
        profile = cProfile.Profile()
        profile.runcall(verifier.check, case, x, actual)
    pstats.Stats(profile).sort_stats("tottime").print_stats(12)


def _timed(verifier, case, x, actual):
    start = time.perf_counter()
    verifier.check(case, x, actual)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
