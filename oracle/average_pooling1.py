"""DML_AVERAGE_POOLING1: DML_AVERAGE_POOLING with Dilations, the distance between a window's positions
(IncludePadding TRUE divides by prod(WindowSize): the positions, not the dilated extent)."""
import numpy as np

from oracle.average_pooling import average

OPERATOR = "AVERAGE_POOLING1"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None, "Dilations": None,
            "IncludePadding": None, "ExecutionFlags": "NONE"}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ExecutionFlags="NONE", **fields) -> np.ndarray:
    return average(x, fields)
