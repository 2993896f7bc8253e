"""Run hand-picked inputs through a backend (default dml-wine) and print them beside the oracle
and beside ONNX Runtime's CPU provider: the edge behaviours docs/dml-wine-lavapipe.md reports.

    python scripts/dml_wine/probe_values.py [PATHS] [--backend dml-wine] [--markdown]

The probes are cases (default: sweeps/probes/, one case file per operator, `values` inputs), so
an operator brings its own.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

import oracle
from conformance import backends
from conformance.caseset.caseload import load_paths

PROBES = Path(__file__).resolve().parents[2] / "sweeps" / "probes"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", default=[str(PROBES)], help="case files or folders (default sweeps/probes)")
    parser.add_argument("--backend", default="dml-wine")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    items = [(case, case.make_input()) for case in load_paths(args.paths)]
    device = backends.create(args.backend, announce=lambda m: None)
    cpu = backends.create("cpu")
    try:
        device_outcomes = device.run_many(items)
        cpu_outcomes = cpu.run_many(items)
    finally:
        device.close()
        cpu.close()
    if args.markdown:
        print(f"| operator | dtype | params | x | DirectML spec (oracle) | {args.backend} | ULP off | "
              "ONNX Runtime CPU |")
        print("|---|---|---|---|---|---|---|---|")
    for (case, x), got, ref in zip(items, device_outcomes, cpu_outcomes):
        expected = oracle.evaluate(case.op, x, case.dtype, **case.params)
        params = ", ".join(f"{k}={v}" for k, v in case.params.items() if v is not None)
        if got.status != "ok":
            print(f"{case.op} {case.dtype} {params}: {got.status} {got.message}", file=sys.stderr)
            continue
        for i in range(x.size):
            off = _off(expected[i], got.output[i])
            row = [_fmt(x[i]), _fmt(expected[i]), _fmt(got.output[i]), off,
                   _fmt(ref.output[i]) if ref.status in ("ok", "cpu-fallback") else ref.status]
            if args.markdown:
                row[3] = f"**{off}**" if off not in ("0", "") else off
                print(f"| {case.op} | {case.dtype} | {params} | " + " | ".join(row) + " |")
            else:
                print(f"{case.op:27} {case.dtype:8} {params:28} x={row[0]:>15} spec={row[1]:>15} "
                      f"{args.backend}={row[2]:>15} ulp={off:>10} cpu={row[4]:>15}")
    return 0


def _off(expected, actual) -> str:
    """ULP distance, 'NaN' where exactly one is NaN, '0' where both are."""
    from conformance.judge.ulp import ulp_distance
    e, a = np.asarray(expected), np.asarray(actual)
    if e.dtype.kind != "f":
        return str(int(ulp_distance(e.reshape(1), a.reshape(1))[0]))
    if np.isnan(e) or np.isnan(a):
        return "0" if np.isnan(e) and np.isnan(a) else "NaN"
    return str(int(ulp_distance(e.reshape(1), a.reshape(1))[0]))


def _fmt(value) -> str:
    value = np.asarray(value)
    if value.dtype.kind != "f":
        return str(value)
    if np.isnan(value):
        return "-nan" if np.signbit(value) else "nan"
    return f"{float(value):.9g}" if value != 0 else ("-0" if np.signbit(value) else "0")


if __name__ == "__main__":
    sys.exit(main())
