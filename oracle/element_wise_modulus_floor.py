"""DML_ELEMENT_WISE_MODULUS_FLOOR: f(a, b) = a - (b * floor(a / b)), Python's modulus.

Floats: Python's % (numpy.mod): r = fmod(a, b) (exact), and r + b where r is non-zero and its sign
differs from b's. That sum is rounded to float64 before the caller rounds it to the tensor type;
where float64 rounded it onto a midpoint of the tensor type, it is moved off the midpoint toward the
exact sum, so that the one rounding the caller makes is the correct one. a % +-0 and +-inf % b are
NaN. Integers: Python's %, the divisor's sign; division by zero is not defined by the page: 0 here.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_MODULUS_FLOOR"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    a, b = x
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, 1, b).astype(b.dtype)
        return np.where(b == 0, 0, np.mod(a, safe)).astype(a.dtype)
    r = np.fmod(a, b)
    adjust = (r != 0) & (np.signbit(r) != np.signbit(b)) & np.isfinite(b)
    total = r + b
    error = (r - (total - (total - r))) + (b - (total - r))  # TwoSum: total + error = r + b exactly
    target = np.dtype(dtype)
    with np.errstate(over="ignore"):
        nearest = total.astype(target)
        other = np.nextafter(nearest, np.where(total > nearest, np.inf, -np.inf).astype(target))
        midpoint = (nearest != total) & ((nearest.astype(np.float64) + other.astype(np.float64)) / 2 == total)
    nudged = np.where(midpoint & (error != 0), np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    result = np.where(adjust, nudged, r)
    # Python: a finite, b infinite of the other sign gives b; fmod gave a
    return np.where(np.isinf(b) & np.isfinite(a) & (a != 0) & (np.signbit(a) != np.signbit(b)), b, result)
