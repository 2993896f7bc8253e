"""DML_ELEMENT_WISE_CLIP_GRAD: f(x, gradient) = 0 if x <= Min, 0 if x >= Max, else gradient.

Min and Max are FLOAT fields, cast to the tensor type as CLIP's are (oracle.rounding: toward zero and
saturating for integers, to nearest for float16). NaN x compares false: the gradient passes.
"""
import numpy as np

from oracle.clip import FLT_MAX
from oracle.rounding import cast_bound_to_tensor_type

OPERATOR = "ELEMENT_WISE_CLIP_GRAD"
DEFAULTS = {"Min": -FLT_MAX, "Max": FLT_MAX}


def gated(x, gradient, low, high):
    """The gradient where low < x < high, else 0 (shared with CLIP_GRAD1)."""
    closed = (x <= low) | (x >= high)
    return np.where(closed, np.zeros((), gradient.dtype), gradient)


def reference(x, dtype: str, nan_rule="d3d", Min=-FLT_MAX, Max=FLT_MAX) -> np.ndarray:
    value, gradient = x
    return gated(value, gradient, cast_bound_to_tensor_type(Min, dtype), cast_bound_to_tensor_type(Max, dtype))
