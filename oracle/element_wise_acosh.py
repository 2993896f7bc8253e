"""DML_ELEMENT_WISE_ACOSH: f(x) = acosh(x) = ln(x + sqrt(x * x - 1)), after the optional ScaleBias;
NaN below 1."""
import numpy as np

from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_ACOSH"
DEFAULTS = {"ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    g = apply_scale_bias(x, ScaleBias)
    return np.arccosh(g)
