"""DML_ELEMENT_WISE_SUBTRACT: f(a, b) = a - b.

Floats as ADD (float64, rounded once: correctly rounded). Integers (the page is silent on
overflow): two's complement wrap, numpy's subtract in the tensor's own type.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_SUBTRACT"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.subtract(a, b)
