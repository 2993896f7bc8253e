"""DML_ELEMENT_WISE_CLIP: f(x) = max(Min, min(x, Max)), after the optional ScaleBias.

For a non-float tensor, Min and Max are cast to the tensor type first.
"""
import numpy as np

from oracle.minmax import dml_max, dml_min
from oracle.rounding import cast_bound_to_tensor_type
from oracle.scale_bias import apply_scale_bias

# The page gives no typical bounds: the defaults clip nothing (float32 lowest and highest).
FLT_MAX = float(np.finfo(np.float32).max)
OPERATOR = "ELEMENT_WISE_CLIP"
DEFAULTS = {"Min": -FLT_MAX, "Max": FLT_MAX, "ScaleBias": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Min=-FLT_MAX, Max=FLT_MAX, ScaleBias=None) -> np.ndarray:
    low = cast_bound_to_tensor_type(Min, dtype)
    high = cast_bound_to_tensor_type(Max, dtype)
    if x.dtype.kind in "iu" and ScaleBias is None:
        # Integer tensors clip exactly in their own domain (float64 cannot hold all of int64).
        return np.maximum(low, np.minimum(x, high))
    g = apply_scale_bias(x, ScaleBias)
    clipped = dml_max(np.float64(low), dml_min(g, np.float64(high), nan_rule), nan_rule)
    if np.dtype(dtype).kind in "iu":
        # x * Scale + Bias back in an integer tensor: the page's cast for non-float types,
        # truncation toward zero (the bounds are integers, so clip and truncation commute).
        return np.trunc(clipped)
    return clipped


def float32_plan(nan_rule="d3d", Min=-FLT_MAX, Max=FLT_MAX, ScaleBias=None) -> dict | None:
    """reference() for float32 without ScaleBias in one compiled pass (conformance/judge/fast_kernels_jit.py
    FORMULAS): dml_max(low, dml_min(x, high)) with the bounds cast to float32, as above
    (tests/test_speed_equivalence.py holds the two equal)."""
    if nan_rule != "d3d" or ScaleBias is not None:
        return None
    return {"formula": "clamp", "p0": float(cast_bound_to_tensor_type(Min, "float32")),
            "p1": float(cast_bound_to_tensor_type(Max, "float32")), "expm1_divisor": None}
