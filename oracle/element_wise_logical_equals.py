"""DML_ELEMENT_WISE_LOGICAL_EQUALS: f(a, b) = (a == b), 1 for true and 0 for false, into UINT8.

IEEE 754 equality (the page is silent on floats' special values): NaN equals nothing, itself
included; -0 == +0. Integers are compared exactly in their own type.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_LOGICAL_EQUALS"
DEFAULTS = {}


def output_dtype(dtype: str) -> str:
    return "uint8"


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    return np.equal(a, b).astype(np.uint8)
