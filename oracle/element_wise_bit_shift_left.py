"""DML_ELEMENT_WISE_BIT_SHIFT_LEFT: f(a, b) = a << b, a logical shift of unsigned integers.

The page is silent on amounts of the element's width or more: no bit is left, the result is 0
(the harness's choice; HLSL would use the amount modulo 32).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_BIT_SHIFT_LEFT"
DEFAULTS = {}


def shifted(x, shift) -> np.ndarray:
    """shift (np.left_shift or np.right_shift) of a by b, 0 where b is the width or more."""
    a, b = x
    within = b < a.dtype.itemsize * 8
    return np.where(within, shift(a, np.where(within, b, 0).astype(a.dtype)), 0).astype(a.dtype)


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    return shifted(x, np.left_shift)
