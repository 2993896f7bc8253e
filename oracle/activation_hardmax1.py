"""DML_ACTIVATION_HARDMAX1: over the axes in Axes together (oracle/softmaxes.py)."""
import numpy as np

from oracle.softmaxes import hardmax

OPERATOR = "ACTIVATION_HARDMAX1"
DEFAULTS = {"Axes": None}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Axes=None) -> np.ndarray:
    return hardmax(x, Axes, nan_rule)
