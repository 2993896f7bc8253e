"""DML_ELEMENT_WISE_MULTIPLY: f(a, b) = a * b.

Floats: the float64 product of two float32 values is exact (48 bits), rounded once by the caller.
Integers (the page is silent on overflow): two's complement wrap, the low bits of the product,
numpy's multiply in the tensor's own type.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_MULTIPLY"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.multiply(a, b)
