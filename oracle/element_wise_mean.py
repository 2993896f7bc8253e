"""DML_ELEMENT_WISE_MEAN: f(a, b) = (a + b) / 2.

Floats: a + b is exact in float64 for float32 and float16 inputs, and halving is exact: the mean,
rounded once by the caller. Integers (the page is silent): the sum wraps in the tensor's type, then
is halved toward zero (HLSL's integer division); numpy's add in the type wraps.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_MEAN"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    if a.dtype.kind not in "iu":
        return (a + b) / 2
    total = np.add(a, b)
    half = np.abs(total.astype(np.int64)) // 2
    return np.where(total < 0, -half, half).astype(a.dtype)
