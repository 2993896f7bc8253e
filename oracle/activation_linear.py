"""DML_ACTIVATION_LINEAR: f(x) = Alpha * x + Beta (the page gives no typical values)."""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_LINEAR"
DEFAULTS = {"Alpha": 1.0, "Beta": 0.0}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0, Beta=0.0) -> np.ndarray:
    return float_param(Alpha) * x + float_param(Beta)
