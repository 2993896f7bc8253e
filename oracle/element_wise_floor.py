"""DML_ELEMENT_WISE_FLOOR: f(x) = floor(x), the largest integer <= x, after the optional ScaleBias."""
import numpy as np

from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_FLOOR"
DEFAULTS = {"ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    g = apply_scale_bias(x, ScaleBias)
    return np.floor(g)
