"""DML_LP_POOLING1: DML_LP_POOLING with Dilations, the distance between a window's positions."""
import numpy as np

from oracle.lp_pooling import lp

OPERATOR = "LP_POOLING1"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None, "Dilations": None,
            "P": None, "ExecutionFlags": "NONE"}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ExecutionFlags="NONE", **fields) -> np.ndarray:
    return lp(x, fields)
