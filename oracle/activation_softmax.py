"""DML_ACTIVATION_SOFTMAX: each row of the input (its last axis; the page allows an effective rank of
at most 2: {BatchCount, Width}) by oracle/softmaxes.py."""
import numpy as np

from oracle.softmaxes import LAST_AXIS, softmax

OPERATOR = "ACTIVATION_SOFTMAX"
DEFAULTS = {"ExecutionFlags": "NONE"}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ExecutionFlags="NONE") -> np.ndarray:
    return softmax(x, LAST_AXIS)
