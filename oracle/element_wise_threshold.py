"""DML_ELEMENT_WISE_THRESHOLD: f(x) = max(x, Min), after the optional ScaleBias.

max is Direct3D's (a NaN x gives Min). For an integer tensor the page does not say how
the FLOAT Min meets the integers; the harness applies CLIP's rule (its page says it):
Min is cast to the tensor type, truncating toward zero and saturating at the type's range.
With ScaleBias on an integer tensor the result is truncated toward zero, as for CLIP.
"""
import numpy as np

from oracle.clip import FLT_MAX
from oracle.minmax import dml_max
from oracle.rounding import cast_bound_to_tensor_type
from oracle.scale_bias import apply_scale_bias

OPERATOR = "ELEMENT_WISE_THRESHOLD"
# The page gives no typical Min: the default thresholds nothing finite (float32 lowest).
DEFAULTS = {"ScaleBias": None, "Min": -FLT_MAX}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ScaleBias=None, Min=-FLT_MAX) -> np.ndarray:
    low = cast_bound_to_tensor_type(Min, dtype)
    if x.dtype.kind in "iu" and ScaleBias is None:
        return np.maximum(x, low)  # exact in the integer type
    result = dml_max(apply_scale_bias(x, ScaleBias), np.float64(low), nan_rule)
    return np.trunc(result) if np.dtype(dtype).kind in "iu" else result
