"""DML_ELEMENT_WISE_LOGICAL_LESS_THAN: f(a, b) = (a < b), 1 for true and 0 for false, into UINT8.

IEEE 754 ordered comparison (the page is silent on floats' special values): false when either
operand is NaN; -0 and +0 are equal; -inf and +inf order below and above every number. Integers
are compared exactly in their own type (signed or unsigned).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_LOGICAL_LESS_THAN"
DEFAULTS = {}


def output_dtype(dtype: str) -> str:
    return "uint8"


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.less(a, b).astype(np.uint8)
