"""DML_ELEMENT_WISE_BIT_SHIFT_RIGHT: f(a, b) = a >> b, a logical shift of unsigned integers; by the
width or more, 0 (the page is silent: oracle.element_wise_bit_shift_left says why)."""
import numpy as np

from oracle.element_wise_bit_shift_left import shifted

OPERATOR = "ELEMENT_WISE_BIT_SHIFT_RIGHT"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    return shifted(x, np.right_shift)
