"""DML_ELEMENT_WISE_CONSTANT_POW: f(x) = pow(x, Exponent), after the optional ScaleBias.

Negative bases are supported for integral exponents; otherwise the result is NaN.
"""
import numpy as np

from oracle.rounding import float_param
from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_CONSTANT_POW"
DEFAULTS = {"Exponent": 1.0, "ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Exponent=1.0, ScaleBias=None) -> np.ndarray:
    exponent = float_param(Exponent)
    base = apply_scale_bias(x, ScaleBias)
    result = np.power(base, exponent)
    odd_integer = float(exponent).is_integer() and exponent % 2 == 1
    if not odd_integer:
        # pow(+-0, y) keeps the sign of zero only for odd integral y (C99 / IEEE 754);
        # numpy's sqrt and reciprocal shortcuts would return -0 or -inf for pow(-0, 0.5).
        result = np.where(base == 0, np.abs(result), result)
    if not float(exponent).is_integer():
        result = np.where(base < 0, np.nan, result)
    return result
