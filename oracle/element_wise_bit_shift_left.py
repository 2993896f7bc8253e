"""DML_ELEMENT_WISE_BIT_SHIFT_LEFT: f(a, b) = a << b, a logical shift of unsigned integers.

The page is silent on amounts of the element's width or more: no bit is left, the result is 0
(the harness's choice; HLSL and x86 would use the amount modulo 32 or 64).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_BIT_SHIFT_LEFT"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    width = a.dtype.itemsize * 8
    within = b < width
    shifted = np.left_shift(a, np.where(within, b, 0).astype(a.dtype))
    return np.where(within, shifted, 0).astype(a.dtype)
