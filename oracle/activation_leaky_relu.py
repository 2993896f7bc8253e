"""DML_ACTIVATION_LEAKY_RELU: f(x) = x if x >= 0, else Alpha * x."""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_LEAKY_RELU"
DEFAULTS = {"Alpha": 0.01}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=0.01) -> np.ndarray:
    return np.where(x >= 0, x, float_param(Alpha) * x)
