"""DML_ELEMENT_WISE_MAX: f(a, b) = max(a, b).

Floats: Direct3D's max (a NaN operand yields the other; nan_rule "propagate" gives NaN instead),
max(+0, -0) = +0 (oracle.minmax). Integers: exact in their own type.
"""
import numpy as np

from oracle.minmax import dml_max

OPERATOR = "ELEMENT_WISE_MAX"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.maximum(a, b) if a.dtype.kind in "iu" else dml_max(a, b, nan_rule)
