"""DML_ELEMENT_WISE_CONSTANT_POW: f(x) = pow(x, Exponent), after the optional ScaleBias.

Negative bases are supported for integral exponents; otherwise the result is NaN.
"""
import numpy as np

from oracle.rounding import float_param
from oracle.scale_bias import apply_scale_bias

DEFAULTS = {"Exponent": 1.0, "ScaleBias": None}


def element_wise_constant_pow(x: np.ndarray, Exponent=1.0, ScaleBias=None,
                              nan_rule="d3d") -> np.ndarray:
    exponent = float_param(Exponent)
    base = apply_scale_bias(x, ScaleBias)
    result = np.power(base, exponent)
    if not float(exponent).is_integer():
        result = np.where(base < 0, np.nan, result)
    return result
