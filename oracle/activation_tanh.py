"""DML_ACTIVATION_TANH: f(x) = (1 - exp(-2 * x)) / (1 + exp(-2 * x)), the hyperbolic tangent.

Computed as tanh(x): the same number, without the cancellation near 0 or the overflow of
exp(-2x) for large negative x.
"""
import numpy as np

OPERATOR = "ACTIVATION_TANH"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return np.tanh(x)
