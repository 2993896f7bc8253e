"""DML_ACTIVATION_HARD_SWISH: f(x) = x * HardSigmoid(x, Alpha, Beta).

HardSigmoid is DML_ACTIVATION_HARD_SIGMOID's max(0, min(Alpha * x + Beta, 1)). At x = -inf the
product is -inf * 0 = NaN (IEEE), as written. The page's typical Alpha is "0.166667 (1/6)": 1/6.
"""
import numpy as np

from oracle.activation_hard_sigmoid import hard_sigmoid

OPERATOR = "ACTIVATION_HARD_SWISH"
DEFAULTS = {"Alpha": 1.0 / 6.0, "Beta": 0.5}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0 / 6.0, Beta=0.5) -> np.ndarray:
    return x * hard_sigmoid(x, Alpha, Beta, nan_rule)
