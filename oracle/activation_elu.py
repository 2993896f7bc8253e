"""DML_ACTIVATION_ELU: f(x) = x if x >= 0, else Alpha * (exp(x) - 1).

exp(x) - 1 is computed as expm1(x): the same number, without the cancellation near 0.
"""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_ELU"
DEFAULTS = {"Alpha": 1.0}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0) -> np.ndarray:
    return np.where(x >= 0, x, float_param(Alpha) * np.expm1(x))
