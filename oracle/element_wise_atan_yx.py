"""DML_ELEMENT_WISE_ATAN_YX: f(y, x) = atan2(y, x), y from ATensor, x from BTensor.

C's atan2 in float64 (numpy.arctan2), rounded once to the tensor type: the quadrant from the signs
of both inputs, atan2(+-0, -0) = +-pi and atan2(+-0, +0) = +-0 at the origin, which the page leaves
undefined; atan2(+-inf, +-inf) = +-pi/4 or +-3pi/4; NaN with a NaN input.
"""
import numpy as np

OPERATOR = "ELEMENT_WISE_ATAN_YX"
DEFAULTS = {}


def reference(x, dtype: str, nan_rule="d3d") -> np.ndarray:
    y, x_axis = x
    return np.arctan2(y, x_axis)
