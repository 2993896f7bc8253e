"""DML_ELEMENT_WISE_MIN: f(a, b) = min(a, b).

Floats: Direct3D's min (a NaN operand yields the other; nan_rule "propagate" gives NaN instead),
min(+0, -0) = -0 (oracle.minmax). Integers: exact in their own type.
"""
import numpy as np

from oracle.minmax import dml_min

OPERATOR = "ELEMENT_WISE_MIN"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.minimum(a, b) if a.dtype.kind in "iu" else dml_min(a, b, nan_rule)
