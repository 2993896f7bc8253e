"""WebNN's conformance vectors in tests/data/webnn/*.json, for comparing oracles with them.

The files are WebNN's test vectors (web-platform-tests/wpt at 0556bbc4,
webnn/conformance_tests/*.https.any.js, BSD-3-Clause), copied verbatim: each case gives its
inputs, the expected output and the tolerance WebNN judges it by, ULP (measured here with the
harness's own ULP distance, sign included) or ATOL.
"""
import json
from pathlib import Path

import numpy as np

from conformance.judge.ulp import ulp_distance

FOLDER = Path(__file__).parent / "data" / "webnn"


def cases(name: str) -> list:
    return json.loads((FOLDER / f"{name}.json").read_text())["cases"]


def array(operand: dict) -> np.ndarray:
    values = [float(v) if isinstance(v, str) else v for v in operand["data"]]  # "Infinity", "NaN"
    dtype = np.dtype(operand["dataType"])
    if dtype.kind in "iu":
        return np.array(values, dtype=dtype).reshape(operand["shape"])
    return np.array(values, dtype=np.float64).astype(dtype).reshape(operand["shape"])


def within_tolerance(expected: np.ndarray, actual: np.ndarray, tolerance: dict) -> np.ndarray:
    """Per element: within WebNN's ULP or ATOL tolerance (NaN matches NaN)."""
    both_nan = np.isnan(expected) & np.isnan(actual) if expected.dtype.kind == "f" else False
    if tolerance["metricType"] == "ULP":
        return both_nan | (ulp_distance(expected, actual) <= tolerance["value"])
    difference = np.abs(expected.astype(np.float64) - actual.astype(np.float64))
    return both_nan | (difference <= tolerance["value"])
