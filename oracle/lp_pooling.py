"""DML_LP_POOLING: Y = (|X1|^P + ... + |Xn|^P)^(1/P) over each window's positions inside the input
(the padding adds nothing), in float64. The page writes X^P; |X| as ONNX's LpPool takes it (an odd P
of a negative sum would have no real root)."""
import numpy as np

from oracle import windows

OPERATOR = "LP_POOLING"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None, "P": None,
            "ExecutionFlags": "NONE"}


def lp(x: np.ndarray, fields: dict) -> np.ndarray:
    p = int(fields["P"])
    magnitude = np.abs(np.asarray(x, dtype=np.float64))
    total = windows.window_sums(fields)(magnitude ** p)
    return total if p == 1 else np.sqrt(total) if p == 2 else total ** (1.0 / p)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ExecutionFlags="NONE", **fields) -> np.ndarray:
    return lp(x, fields)
