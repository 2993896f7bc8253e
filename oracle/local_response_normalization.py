"""DML_LOCAL_RESPONSE_NORMALIZATION: Output = Input / (Bias + (Alpha / LocalSize) * sum(Input^2 for every
Input in the local region))^Beta. The region (window_sums): CrossChannel TRUE, the channels c - floor((LocalSize
- 1) / 2) to c + ceil((LocalSize - 1) / 2) within [0, C - 1] (the earlier page's Remarks, ONNX's LRN);
CrossChannel FALSE, that span along Height and along Width in the element's own channel (the current page:
"per dimension: Width, Height"). Elements outside the tensor are not in the region."""
import numpy as np

OPERATOR = "LOCAL_RESPONSE_NORMALIZATION"
DEFAULTS = {"CrossChannel": 1, "LocalSize": 5, "Alpha": 0.0001, "Beta": 0.75, "Bias": 1.0,
            "ExecutionFlags": "NONE"}


def span(local_size: int) -> tuple:
    """(before, after) the element along one dimension."""
    return (local_size - 1) // 2, local_size // 2


def window_sums(values: np.ndarray, axes, local_size: int) -> np.ndarray:
    """The sum over the window along each of axes (same shape; outside the tensor: nothing)."""
    before, after = span(local_size)
    total = values
    for axis in axes:
        padding = [(0, 0)] * values.ndim
        padding[axis] = (before, after)
        padded = np.pad(total, padding)
        size = values.shape[axis]
        total = sum(np.take(padded, range(k, k + size), axis=axis) for k in range(before + after + 1))
    return total


def region_axes(cross_channel) -> tuple:
    return (1,) if cross_channel else (2, 3)


def reference(x, dtype: str, nan_rule="d3d", CrossChannel=1, LocalSize=5, Alpha=0.0001, Beta=0.75, Bias=1.0,
              ExecutionFlags="NONE") -> np.ndarray:
    alpha, beta, bias = (float(np.float32(v)) for v in (Alpha, Beta, Bias))
    squares = window_sums(x * x, region_axes(CrossChannel), int(LocalSize))
    return x / (bias + alpha / int(LocalSize) * squares) ** beta
