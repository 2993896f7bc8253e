"""DML_MAX_POOLING: each output element the maximum of its window of InputTensor (WindowSize
positions, Strides apart, the padding read as no element), y = max(x1, ..., x_pool_size).

The page does not say how NaN is compared: Direct3D's max (a NaN operand yields the other) by
default, nan_rule "propagate" gives NaN; between +0 and -0 the maximum is +0 (oracle.minmax)."""
import numpy as np

from oracle import windows
from oracle.minmax import dml_max

OPERATOR = "MAX_POOLING"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", **fields) -> np.ndarray:
    return windows.max_pool(x, fields, maximum(x, nan_rule))[0]


def maximum(x, nan_rule):
    """The comparison a window's maximum is folded with: exact integers; floats as Direct3D's max."""
    return np.maximum if x.dtype.kind in "iu" else (lambda a, b: dml_max(a, b, nan_rule))
