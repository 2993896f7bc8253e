"""How long the accumulation judge (conformance/judge/accumulated.py) takes, and its peak memory, on the
workloads of sweeps/accumulation_bench/ (a 4096 x 4096 x 4096 float32 GEMM; sums of 2^20 and 2^24 terms):
for each case, the device result from ONNX Runtime's CPU provider, the oracle's float64 result, the
interval alone, and the whole verdict (conformance.judge.entry.compare_case). Prints the figures;
asserts nothing.

    nice .venv/bin/python scripts/bench_accumulation.py [-k KEYWORD] [FOLDER_OR_FILES ...]

The GEMM needs about 3.5 GB and a minute or more on a small machine: run it alone, niced.
"""
import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from conformance import backends, specs  # noqa: E402
from conformance.caseset.caseload import load_paths  # noqa: E402
from conformance.judge.accumulated import interval  # noqa: E402
from conformance.judge.entry import compare_case  # noqa: E402
from conformance.judge.expected import expected_and_reference  # noqa: E402

WORKLOADS = ROOT / "sweeps" / "accumulation_bench"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def timed(label: str, work):
    started, cpu = time.perf_counter(), time.process_time()
    value = work()
    print(f"  {label}: {time.perf_counter() - started:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
          f"peak {peak_mb():.0f} MB")
    return value


def bench(case, device) -> None:
    print(f"{case.id}:")
    x = timed("inputs", case.make_input)
    outcome = timed("device result (ONNX Runtime CPU)", lambda: device.run(case, x))
    expected, reference = timed("oracle (float64) and its rounding", lambda: expected_and_reference(case, x))
    inputs = x if isinstance(x, tuple) else (x,)
    spec = specs.get(case.op)
    timed("interval alone", lambda: interval(spec, inputs, case.params, case.dtype))
    result = timed("verdict (compare_case: interval and comparison)",
                   lambda: compare_case(case, x, outcome.output, expected, reference))
    print(f"  {result.d3d['checked']:,} outputs, {result.d3d['failed']} outside, bound fraction "
          f"{result.d3d['bound_fraction']:.3g}, max ULP {result.max_ulp:,}, {result.mismatches:,} beyond the "
          "ulp model's count")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(WORKLOADS)])
    parser.add_argument("-k", dest="keyword", help="only cases whose id holds this")
    args = parser.parse_args()
    cases = [c for c in load_paths(args.paths) if not args.keyword or args.keyword in c.id]
    device = backends.create("cpu", announce=lambda m: None)
    print(f"peak before {peak_mb():.0f} MB; {len(cases)} workloads")
    try:
        for case in sorted(cases, key=lambda c: c.elements):
            bench(case, device)
    finally:
        device.close()


if __name__ == "__main__":
    main()
