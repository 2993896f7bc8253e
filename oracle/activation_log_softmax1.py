"""DML_ACTIVATION_LOG_SOFTMAX1: over the axes in Axes together (oracle/softmaxes.py)."""
import numpy as np

from oracle.softmaxes import log_softmax

OPERATOR = "ACTIVATION_LOG_SOFTMAX1"
DEFAULTS = {"Axes": None, "ExecutionFlags": "NONE"}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Axes=None, ExecutionFlags="NONE") -> np.ndarray:
    return log_softmax(x, Axes)
