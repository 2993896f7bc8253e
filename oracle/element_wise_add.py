"""DML_ELEMENT_WISE_ADD: f(a, b) = a + b.

Floats: a + b in float64, rounded once to the tensor type by the caller; double rounding through
float64 is innocuous for +, -, *, / (53 >= 2 * 24 + 2), so this is the correctly rounded sum.
Integers (the page is silent on overflow): two's complement wrap, what GPUs' integer add does;
numpy's add in the tensor's own type wraps.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_ADD"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.add(a, b)
