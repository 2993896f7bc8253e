"""DML_ELEMENT_WISE_BIT_NOT: every bit of each element inverted, in its native encoding.

The page: the data type only gives the element's width, so a float tensor's bits are
inverted as they are (NOT of 1.0f, 0x3F800000, is 0xC07FFFFF = -3.9999998f).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_BIT_NOT"
DEFAULTS = {}
READS_BITS = True  # float inputs arrive in their own type: their bits are the operand


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    x = np.ascontiguousarray(x)
    return np.invert(x.view(f"u{x.dtype.itemsize}")).view(x.dtype)
