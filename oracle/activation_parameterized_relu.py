"""DML_ACTIVATION_PARAMETERIZED_RELU: f(x, slope) = x if x >= 0, else slope * x.

Floats: the product is exact in float64 and rounded once by the caller; -0 >= 0, so -0 stays -0;
NaN x gives NaN. Integers (the page is silent on overflow): the product wraps in the tensor's type.
"""
import numpy as np

OPERATOR = "ACTIVATION_PARAMETERIZED_RELU"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    value, slope = x
    return np.where(value >= 0, value, np.multiply(slope, value))
