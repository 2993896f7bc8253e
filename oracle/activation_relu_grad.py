"""DML_ACTIVATION_RELU_GRAD: OutputGradientTensor = (X > 0 ? dY : 0).

X = +-0 and NaN give 0 (the comparison is false); dY passes through unchanged, NaN included.
"""
import numpy as np

OPERATOR = "ACTIVATION_RELU_GRAD"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    value, gradient = x
    return np.where(value > 0, gradient, 0.0)
