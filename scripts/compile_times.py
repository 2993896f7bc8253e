"""How long the verifier's compiled interval loops take to compile on a fresh machine, and how fast
they then run: the figures behind docs/performance.md's "The suite and the first run at a
sustainable pace".

    .venv/bin/python scripts/compile_times.py            # bench's float32 workloads, cold then warm
    .venv/bin/python scripts/compile_times.py --cases    # every one-input float32 operator of cases/
    .venv/bin/python scripts/compile_times.py --warm 3   # three warm passes (the speed varies a little)

Each pass runs in a process of its own with one fresh NUMBA_CACHE_DIR (cold: empty; warm: what the
cold pass left): per formula, the first call of fused_intervals.bounds (its compile, when cold) and
the nanoseconds per element over 2**22 uniform float32 inputs. The digest of all bounds shows that
both passes (and two versions of the harness) computed the same bits. Nothing is asserted.
"""
import argparse
import os
import subprocess
import sys
import tempfile



def formulas(every: bool) -> list:
    """[(operator, fields)] of float32 one-input work: bench's workloads (sweeps/bench), or with every,
    the first float32 parameter set of each such operator of the default cases."""
    from conformance import specs
    from conformance.caseset.caseload import load_paths
    from conformance.cli import bench
    if not every:
        return [(op, params) for op, dtype, params in bench.workloads() if dtype == "float32"]
    found = {}
    for case in load_paths():
        if case.dtype == "float32" and not specs.get(case.op).several_inputs and specs.get(case.op).d3d:
            found.setdefault(case.op, case.params)
    return sorted(found.items())


PASS = """
import hashlib, sys, time
import numpy as np
from conformance.judge import d3d, fused_intervals
x = np.random.default_rng(1).uniform(-10, 10, 1 << 22).astype(np.float32)
digest, total = hashlib.sha256(), 0.0
for op, params in {formulas!r}:
    judge = d3d.IntervalJudge(op, "float32", params)
    start = time.perf_counter()
    fused_intervals.bounds(judge, x[:1000], None)
    first = time.perf_counter() - start
    start = time.perf_counter()
    bounds = fused_intervals.bounds(judge, x, None)
    per = (time.perf_counter() - start) / x.size * 1e9
    total += first
    for array in bounds:
        digest.update(np.ascontiguousarray(array).tobytes())
    print(f"  {{op:32}} first call {{first:6.2f}} s   {{per:6.1f}} ns/element", flush=True)
print(f"  first calls in all {{total:.1f}} s; digest of every bound {{digest.hexdigest()[:16]}}")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", type=int, default=1, help="warm passes after the cold one (default 1)")
    parser.add_argument("--cases", action="store_true",
                        help="every one-input float32 operator of the default cases, not bench's workloads")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)
    work = formulas(args.cases)
    with tempfile.TemporaryDirectory(prefix="dmlc-compile-times-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for name in ["cold"] + ["warm"] * args.warm:
            print(f"{name} (NUMBA_CACHE_DIR={cache}):", flush=True)
            done = subprocess.run([sys.executable, "-c", PASS.format(formulas=work)], env=env, cwd=root)
            if done.returncode:
                return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
