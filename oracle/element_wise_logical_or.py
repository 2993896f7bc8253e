"""DML_ELEMENT_WISE_LOGICAL_OR: f(a, b) = a || b, 1 or 0 in the inputs' own type.

Any non-zero value is true (the page's C formula): 2 OR 255 is computed on truths, not bits.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_LOGICAL_OR"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.logical_or(a != 0, b != 0).astype(a.dtype)
