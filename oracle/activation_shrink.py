"""DML_ACTIVATION_SHRINK: f(x) = x - Bias if x > Threshold, x + Bias if x < -Threshold, else 0.

The branches are taken in that order (a negative Threshold makes the first two overlap), and
NaN takes neither: f(NaN) = 0, as written.

Integer tensors (feature level 5_1): the page is silent on how the FLOAT fields meet an integer
tensor. The harness computes the formula exactly, with x and the fields as the numbers they are
(the fields as float32), and converts the result to the tensor type as any real number is
converted to an integer type here: rounded half to even, saturated at the type's range.
"""
import math
from fractions import Fraction

import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_SHRINK"
DEFAULTS = {"Bias": 0.0, "Threshold": 0.5}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Bias=0.0, Threshold=0.5) -> np.ndarray:
    if x.dtype.kind in "iu":
        return _integer_shrink(x, Bias, Threshold)
    bias, threshold = float_param(Bias), float_param(Threshold)
    return np.where(x > threshold, x - bias, np.where(x < -threshold, x + bias, 0.0))


def _integer_shrink(x: np.ndarray, bias, threshold) -> np.ndarray:
    b, t = (_exact(float_param(field)) for field in (bias, threshold))
    info = np.iinfo(x.dtype)

    def one(v: int) -> int:
        result = v - b if v > t else v + b if v < -t else 0
        if math.isinf(result):
            return info.max if result > 0 else info.min
        return min(max(round(result), info.min), info.max)  # round(): half to even, exactly

    return np.array([one(int(v)) for v in x.ravel()], dtype=x.dtype).reshape(x.shape)


def _exact(value: float):
    return Fraction(value) if math.isfinite(value) else value
