"""DML_ACTIVATION_SWISH: f(x) = x * Sigmoid(SigmoidInputScale * x).

Sigmoid is DML_ACTIVATION_SIGMOID's 1 / (1 + exp(-x)). Where Sigmoid is 0 at an infinite x
(x = -inf for a positive scale) the product is inf * 0 = NaN (IEEE), as written.
"""
import numpy as np

from oracle.activation_sigmoid import sigmoid
from oracle.rounding import float_param

OPERATOR = "ACTIVATION_SWISH"
DEFAULTS = {"SigmoidInputScale": 1.0}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", SigmoidInputScale=1.0) -> np.ndarray:
    return x * sigmoid(float_param(SigmoidInputScale) * x)
