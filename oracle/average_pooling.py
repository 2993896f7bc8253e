"""DML_AVERAGE_POOLING: each output element the sum of its window's input elements divided by the
window's size (IncludePadding TRUE: the padding counts, as zeros) or by the number of its positions
inside the input (FALSE), in float64 (the judge bounds the float64 sum's own error)."""
import numpy as np

from oracle import windows

OPERATOR = "AVERAGE_POOLING"
DEFAULTS = {"Strides": None, "WindowSize": None, "StartPadding": None, "EndPadding": None, "IncludePadding": None,
            "ExecutionFlags": "NONE"}


def divisor(input_shape, params) -> np.ndarray:
    """Each output element's divisor: prod(WindowSize) where IncludePadding, else its window's
    positions inside the input."""
    if params.get("IncludePadding"):
        return np.full(windows.output_sizes(input_shape, params), float(np.prod(params["WindowSize"])))
    return windows.taps(input_shape, params)[1].sum(axis=-1).astype(np.float64)


def average(x: np.ndarray, fields: dict) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return windows.window_sums(fields)(x) / divisor(x.shape, fields)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", ExecutionFlags="NONE", **fields) -> np.ndarray:
    return average(x, fields)
