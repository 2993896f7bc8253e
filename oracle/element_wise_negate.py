"""DML_ELEMENT_WISE_NEGATE: f(x) = -x.

Integers: the page is silent on the most negative value, whose negation does not
fit. The harness chooses two's complement wraparound, what GPU integer negation
does: NEGATE(INT_MIN) = INT_MIN (-(-128) is -128 in INT8).
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_NEGATE"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    # Integers stay in their own type, where numpy's negation wraps; floats are exact in float64.
    with np.errstate(over="ignore"):
        return np.negative(x)
