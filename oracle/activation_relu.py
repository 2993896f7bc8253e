"""DML_ACTIVATION_RELU: f(x) = max(0, x).

Integer tensors (INT32, INT16, INT8 from feature level 5_1) are computed exactly in their own type.
Floats use Direct3D max: RELU(NaN) = 0 under "d3d", and max(0, -0) = +0.
"""
import numpy as np

from oracle.minmax import dml_max

OPERATOR = "ACTIVATION_RELU"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    if x.dtype.kind in "iu":
        return np.maximum(x, x.dtype.type(0))
    return dml_max(0.0, x, nan_rule)
