"""DML_ELEMENT_WISE_IDENTITY: f(x) = x, after the optional ScaleBias.

Integer tensors stay exact: with ScaleBias, g(x) = x * Scale + Bias is computed as a rational and
truncated toward zero (a float stored in an integer tensor), then saturated to the type; the page
is silent on ScaleBias with integer types, this is the choice (the same as CLIP's).
"""
import numpy as np

from oracle.scale_bias import apply_scale_bias, apply_scale_bias_to_integers

OPERATOR = "ELEMENT_WISE_IDENTITY"
DEFAULTS = {"ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None) -> np.ndarray:
    if x.dtype.kind in "iu":
        return apply_scale_bias_to_integers(x, ScaleBias)
    return apply_scale_bias(x, ScaleBias)
