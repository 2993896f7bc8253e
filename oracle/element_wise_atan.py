"""DML_ELEMENT_WISE_ATAN: f(x) = atan(x), after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_ATAN"
DEFAULTS = {"ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    g = apply_scale_bias(x, ScaleBias)
    return np.arctan(g)
