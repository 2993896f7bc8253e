"""How long the accumulation judge (conformance/judge/accumulated.py) takes, and its peak memory: a
4096 x 4096 x 4096 float32 GEMM's verdict (GEMM's spec: its Dot step, the float64 A @ B and the
magnitudes |A| @ |B|, K = 4096) and REDUCE SUM of 2^20
and 2^24 terms. Each verdict is the oracle's float64 result, then compare_accumulated (the interval and
the comparison) of a float32 device result. Prints the figures; asserts nothing.

    nice .venv/bin/python scripts/bench_accumulation.py [--only reduce|gemm] [--size 4096]

The GEMM needs about 1.5 GB and minutes on a small machine: run it alone, niced.
"""
import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402

from conformance import specs  # noqa: E402
from conformance.judge.accumulated import compare_accumulated, interval  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def timed(label: str, work):
    started, cpu = time.perf_counter(), time.process_time()
    value = work()
    print(f"  {label}: {time.perf_counter() - started:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
          f"peak {peak_mb():.0f} MB")
    return value


def verdict(name: str, spec, inputs, params, dtype, oracle, device) -> None:
    print(f"{name}:")
    reference = timed("oracle (float64)", oracle)
    actual = timed("device result (float32)", device)
    expected = reference.astype(dtype)  # nearest even
    timed("interval alone", lambda: interval(spec, inputs, params, dtype))
    result = timed("verdict (compare_accumulated: interval and comparison)",
                   lambda: compare_accumulated(spec, inputs, params, dtype, expected, reference, actual,
                                               spec.ulp_tolerance(tuple(x.shape for x in inputs), params, dtype)))
    print(f"  {result.d3d['checked']:,} outputs, {result.d3d['failed']} outside, bound fraction "
          f"{result.d3d['bound_fraction']:.3g}, max ulp {result.max_ulp} (tolerance "
          f"{spec.ulp_tolerance(tuple(x.shape for x in inputs), params, dtype)})")


def reduce_sums(rng) -> None:
    import oracle
    spec = specs.get("REDUCE")
    for exponent in (20, 24):
        x = rng.uniform(-1, 1, 1 << exponent).astype(np.float32)
        params = {**spec.defaults(), "Function": "DML_REDUCE_FUNCTION_SUM", "Axes": [0], "OutputType": "float32"}
        verdict(f"REDUCE SUM of 2^{exponent} float32 terms", spec, (x,), params, "float32",
                lambda: oracle.reference("REDUCE", x, "float32", Function=params["Function"], Axes=[0]),
                lambda: np.sum(x, keepdims=True))  # numpy's pairwise float32 sum
        del x


def gemm(rng, size: int) -> None:
    spec = specs.get("GEMM")  # its Dot step: exact A @ B and |A| @ |B| in float64, K products per sum
    from oracle.gemm import product
    a = rng.uniform(-1, 1, (size, size)).astype(np.float32)
    b = rng.uniform(-1, 1, (size, size)).astype(np.float32)
    params = {**spec.defaults(), "CTensor": "absent"}
    verdict(f"GEMM {size} x {size} x {size} float32 (K = {size})", spec, (a, b), params, "float32",
            lambda: product(a, b), lambda: a @ b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("reduce", "gemm"))
    parser.add_argument("--size", type=int, default=4096, help="the GEMM's M = N = K")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}; peak before {peak_mb():.0f} MB")
    if args.only in (None, "reduce"):
        reduce_sums(rng)
    if args.only in (None, "gemm"):
        gemm(rng, args.size)


if __name__ == "__main__":
    main()
