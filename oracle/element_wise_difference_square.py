"""DML_ELEMENT_WISE_DIFFERENCE_SQUARE: f(a, b) = (a - b) * (a - b).

Floats: a - b is exact in float64 for float32 and float16 inputs, and its square (at most 50
significant bits) too: the exact value, rounded once by the caller. Integers (the page is silent on
overflow): two's complement wrap, numpy's subtract and multiply in the tensor's own type.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_DIFFERENCE_SQUARE"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    difference = np.subtract(a, b)
    return np.multiply(difference, difference)
