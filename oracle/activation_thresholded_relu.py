"""DML_ACTIVATION_THRESHOLDED_RELU: f(x) = x if x > Alpha, else 0.

The comparison is exact, with Alpha as the float32 the field holds (a float16 input is not
compared with Alpha rounded to float16). NaN > Alpha is false, so f(NaN) = 0, as written.
"""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "ACTIVATION_THRESHOLDED_RELU"
DEFAULTS = {"Alpha": 1.0}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Alpha=1.0) -> np.ndarray:
    return np.where(x > float_param(Alpha), x, 0.0)
