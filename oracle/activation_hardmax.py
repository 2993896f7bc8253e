"""DML_ACTIVATION_HARDMAX: each row of the input (its last axis; the page allows an effective rank of
at most 2: {BatchCount, Width}) by oracle/softmaxes.py."""
import numpy as np

from oracle.softmaxes import LAST_AXIS, hardmax

OPERATOR = "ACTIVATION_HARDMAX"
DEFAULTS = {}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return hardmax(x, LAST_AXIS, nan_rule)
