"""How the verification of one pair chunk scales with threads, on the machine it runs on.

    python3 scripts/gpu/verify_scaling.py [CASE_FILE] [--jobs 1,2,4,8,16] [--profile]

Verifies one 4 Mi-pair chunk of the first case of CASE_FILE (default: the last quarter of ADD's
float16 pairs) against a device that computes in float32 and stores float16 rounded toward zero
(tests/faults.py stores_half_toward_zero: what the H100 does), with fast.Verifier at each thread
count: the best of three wall times, and the process CPU time they took (CPU / wall: the threads
busy at once). --profile adds one thread's cProfile, by own time.
"""
import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main(argv=None) -> int:
    import numpy as np

    import faults
    from conformance.caseset import inputs
    from conformance.caseset.caseload import load_file
    from conformance.judge import fast
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", nargs="?", default=str(min((ROOT / "scripts/gpu/sweeps").glob("*_float16_pairs.yaml"))),
                        help="a pair sweep's case file (default: the first of scripts/gpu/sweeps/)")
    parser.add_argument("--case", type=int, default=-1, help="which case of the file (default the last)")
    parser.add_argument("--jobs", default="1,2,4,8,16")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    case = load_file(args.cases)[args.case]
    _, x = next(inputs.chunks(case.generator, case.dtype, case.shape, 1 << 22))
    with np.errstate(all="ignore"):
        actual = faults.stores_half_toward_zero(case.op, x, case.dtype)
    print(f"{case.id}: one chunk of {actual.size:,} elements")
    for jobs in (int(j) for j in args.jobs.split(",")):
        with fast.Verifier(jobs) as verifier:
            verifier.add_chunk(fast.Tally(case.shape, case.dtype), case, x, actual, 0)  # warm
            best = cpu = float("inf")
            for _ in range(3):
                began, began_cpu = time.perf_counter(), time.process_time()
                verifier.add_chunk(fast.Tally(case.shape, case.dtype), case, x, actual, 0)
                wall = time.perf_counter() - began
                if wall < best:
                    best, cpu = wall, time.process_time() - began_cpu
        print(f"  {jobs:2d} thread(s): {best * 1e3:7.1f} ms, CPU {cpu * 1e3:7.1f} ms ({cpu / best:4.1f} busy)")
    if args.profile:
        with fast.Verifier(1) as verifier:
            profile = cProfile.Profile()
            profile.runcall(verifier.add_chunk, fast.Tally(case.shape, case.dtype), case, x, actual, 0)
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
