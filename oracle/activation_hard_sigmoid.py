"""DML_ACTIVATION_HARD_SIGMOID: f(x) = max(0, min(Alpha * x + Beta, 1)).

min and max follow Direct3D (a NaN operand yields the other one), so f(NaN) = 1 under "d3d".
"""
import numpy as np

from oracle.minmax import dml_max, dml_min
from oracle.rounding import float_param

OPERATOR = "ACTIVATION_HARD_SIGMOID"
DEFAULTS = {"Alpha": 0.2, "Beta": 0.5}


def hard_sigmoid(x: np.ndarray, alpha, beta, nan_rule: str) -> np.ndarray:
    """Also HARD_SWISH's HardSigmoid(x, Alpha, Beta)."""
    return dml_max(0.0, dml_min(float_param(alpha) * x + float_param(beta), 1.0, nan_rule), nan_rule)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=0.2, Beta=0.5) -> np.ndarray:
    return hard_sigmoid(x, Alpha, Beta, nan_rule)
