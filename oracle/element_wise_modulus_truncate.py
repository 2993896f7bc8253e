"""DML_ELEMENT_WISE_MODULUS_TRUNCATE: f(a, b) = a - (b * trunc(a / b)), C's modulus.

Floats: C's fmod (numpy.fmod), exact in float64 for float32 and float16 inputs; fmod(a, +-0) and
fmod(+-inf, b) are NaN, fmod(a, +-inf) = a. Integers: C's %, the dividend's sign, in the tensor's
type; division by zero is not defined by the page: 0 here (no case asks).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_MODULUS_TRUNCATE"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    if a.dtype.kind not in "iu":
        return np.fmod(a, b)
    safe = np.where(b == 0, 1, b).astype(b.dtype)
    return np.where(b == 0, 0, np.fmod(a, safe)).astype(a.dtype)
