"""Run hand-picked inputs through a backend (default dml-wine) and print them beside the oracle
and beside ONNX Runtime's CPU provider: the edge behaviours docs/dml-wine-lavapipe.md reports.

    python scripts/dml_wine/probe_values.py [--backend dml-wine] [--markdown]
"""
import argparse
import sys

import numpy as np

import oracle
from conformance import backends
from conformance.case import Case

F32_TINY = float(np.finfo(np.float32).smallest_subnormal)
F32_NORMAL = float(np.finfo(np.float32).smallest_normal)
PROBES = [
    # (operator, dtype, params, inputs)
    ("ELEMENT_WISE_CLIP", "float32", {"Min": -1.0, "Max": 1.0},
     [np.nan, -np.nan, np.inf, -np.inf, 0.5, -0.0, F32_TINY, -F32_TINY]),
    ("ELEMENT_WISE_CLIP", "float32", {"Min": 2.0, "Max": -1.0}, [-5.0, 0.0, 0.5, 5.0, np.nan]),
    ("ELEMENT_WISE_CLIP", "float16", {"Min": 2.0, "Max": -1.0}, [-5.0, 0.0, 5.0, np.nan]),
    ("ELEMENT_WISE_CLIP", "int32", {"Min": 2.0, "Max": -1.0}, [-5, 0, 5]),
    ("ELEMENT_WISE_CLIP", "float32", {"Min": -1.0, "Max": 1.0}, [F32_TINY, -F32_TINY, F32_NORMAL / 2]),
    ("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": 0.0}, [0.0, -0.0, np.nan, np.inf, -np.inf, 2.0]),
    ("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": -1.0}, [0.0, -0.0, F32_TINY, 3e-39, 2.0]),
    ("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": 0.5}, [F32_TINY, -4.0, 4.0, -0.0]),
    ("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": 1.5}, [-2.0, -0.5, 4.0]),
    ("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": 3.0}, [-2.0, -0.5, -3.0]),
    ("ELEMENT_WISE_CONSTANT_POW", "float32", {"Exponent": 2.0}, [-3.0, 1.8428296e19, 1e-30]),
    ("ELEMENT_WISE_CONSTANT_POW", "float16", {"Exponent": -1.0}, [0.0, -0.0, 2.0]),
    ("ACTIVATION_CELU", "float32", {"Alpha": 1.0}, [-F32_TINY, -F32_NORMAL, -1e-3, -1e-5, -0.0465, 0.0]),
    ("ACTIVATION_SCALED_ELU", "float32", {"Alpha": 1.6732, "Gamma": 1.0507}, [-F32_TINY, -1e-3, -0.0125]),
    ("ACTIVATION_SCALED_ELU", "float16", {"Alpha": 1.6732, "Gamma": 1.0507}, [-1e-3, -6e-8, -0.0125]),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="dml-wine")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    device = backends.create(args.backend, announce=lambda m: None)
    cpu = backends.create("cpu")
    items = []
    for number, (op, dtype, params, values) in enumerate(PROBES):
        full = {**oracle.defaults(op), **params}
        x = np.array(values, dtype=np.float64).astype(dtype)
        case = Case(id=f"probe{number}", op=op, dtype=dtype, shape=x.shape, params=full, generator={"kind": "probe"},
                    required_level="1_0", tolerance=0)
        items.append((case, x))
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
    from conformance.ulp import ulp_distance
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
