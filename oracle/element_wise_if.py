"""DML_ELEMENT_WISE_IF: f(cond, a, b) = a where cond != 0, else b; cond is UINT8.

A selection moves data untouched, so float inputs arrive in their own type (READS_BITS): a
signed zero or a subnormal is kept as it is.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_IF"
DEFAULTS = {}
READS_BITS = True


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    condition, a, b = x
    return np.where(condition != 0, a, b)
