"""DML_ELEMENT_WISE_CLIP_GRAD1: f(x, gradient) = 0 if x <= Min, 0 if x >= Max, else gradient.

Min and Max are DML_SCALAR_UNIONs of MinMaxDataType, the output's type (oracle.element_wise_clip1's
typed_bound: exact in the tensor's type; unset, its lowest and highest finite values).
"""
import numpy as np

from oracle.element_wise_clip1 import typed_bound
from oracle.element_wise_clip_grad import gated

OPERATOR = "ELEMENT_WISE_CLIP_GRAD1"
DEFAULTS = {"MinMaxDataType": None, "Min": None, "Max": None}


def reference(x, dtype: str, nan_rule="d3d", MinMaxDataType=None, Min=None, Max=None) -> np.ndarray:
    if MinMaxDataType not in (None, dtype):
        raise ValueError(f"CLIP_GRAD1: MinMaxDataType {MinMaxDataType} must be the output's type {dtype}")
    value, gradient = x
    low, high = typed_bound(Min, dtype, False), typed_bound(Max, dtype, True)
    if value.dtype.kind in "iu":
        low, high = np.array(low, value.dtype), np.array(high, value.dtype)
    return gated(value, gradient, low, high)
