"""DML_ACTIVATION_SOFTSIGN: f(x) = x / (1 + abs(x)). At x = +-inf that is inf / inf = NaN (IEEE), as written."""
import numpy as np

OPERATOR = "ACTIVATION_SOFTSIGN"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return x / (1.0 + np.abs(x))
