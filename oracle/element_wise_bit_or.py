"""DML_ELEMENT_WISE_BIT_OR: f(a, b) = a | b on each element's native encoding.

The page: the data type only gives the element's width, so float tensors' bits are combined as
they are (the inputs arrive in their own type: READS_BITS).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_BIT_OR"
DEFAULTS = {}
READS_BITS = True


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = (np.ascontiguousarray(v) for v in x)
    bits = f"u{a.dtype.itemsize}"
    return np.bitwise_or(a.view(bits), b.view(bits)).view(a.dtype)
