"""DML_ELEMENT_WISE_DIVIDE: f(a, b) = a / b; "for integer divisions, the result is truncated".

Floats: float64 division rounded once by the caller (innocuous double rounding: correctly rounded);
a / +-0 is +-inf by the signs, 0 / 0 and inf / inf NaN (IEEE; Direct3D's a * rcp(b) agrees).
Integers: truncated toward zero. Where the page is silent: INT_MIN / -1 wraps to INT_MIN (two's
complement), and division by zero is not defined by the page; the oracle gives 0 there and the
case files never divide an integer by zero.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_DIVIDE"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    if a.dtype.kind not in "iu":
        return np.divide(a, b)
    safe = np.where(b == 0, 1, b).astype(b.dtype)
    quotient = np.floor_divide(a, safe)
    inexact = (a - quotient * safe != 0) & ((a < 0) != (safe < 0))  # floor -> toward zero
    quotient = quotient + inexact.astype(a.dtype)
    if a.dtype.kind == "i":
        quotient = np.where(safe == -1, np.negative(a), quotient)  # INT_MIN / -1 wraps
    return np.where(b == 0, 0, quotient).astype(a.dtype)
