"""DML_ACTIVATION_SCALED_TANH: f(x) = Alpha * tanh(Beta * x)."""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_SCALED_TANH"
DEFAULTS = {"Alpha": 1.0, "Beta": 0.5}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0, Beta=0.5) -> np.ndarray:
    return float_param(Alpha) * np.tanh(float_param(Beta) * x)
