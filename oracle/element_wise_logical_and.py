"""DML_ELEMENT_WISE_LOGICAL_AND: f(a, b) = a && b, 1 or 0 in the inputs' own type.

Any non-zero value is true (the page's C formula): 2 AND 255 is computed on truths, not bits.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_LOGICAL_AND"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.logical_and(a != 0, b != 0).astype(a.dtype)
