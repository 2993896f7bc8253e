"""DML_ELEMENT_WISE_ABS: f(x) = |x|, after the optional ScaleBias.

Integer tensors (signed only on the page) are computed in their own type: |INT_MIN| does not fit,
and the page is silent; the choice is two's complement wrap (|INT_MIN| = INT_MIN), what GPUs'
integer abs does. With ScaleBias on an integer tensor, g(x) is exact and truncated toward zero
(see oracle.scale_bias.apply_scale_bias_to_integers), its |g| then saturates to the type.
"""
import numpy as np

from oracle.scale_bias import apply_scale_bias, apply_scale_bias_to_integers

OPERATOR = "ELEMENT_WISE_ABS"
DEFAULTS = {"ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    if x.dtype.kind in "iu":
        return np.abs(apply_scale_bias_to_integers(x, ScaleBias))  # numpy's abs wraps INT_MIN
    return np.abs(apply_scale_bias(x, ScaleBias))
