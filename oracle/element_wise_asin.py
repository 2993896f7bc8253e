"""DML_ELEMENT_WISE_ASIN: f(x) = asin(x), after the optional ScaleBias; NaN outside [-1, 1]."""
import numpy as np

from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_ASIN"
DEFAULTS = {"ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    g = apply_scale_bias(x, ScaleBias)
    return np.arcsin(g)
