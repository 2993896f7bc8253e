"""The running tally of CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT, as their pages say: along Axis,
in traversal order k = 0 .. L-1 (DML_AXIS_DIRECTION_INCREASING: index k; DECREASING: index L-1-k),
out[k] = t_0 (op) ... (op) t_k, or, exclusive, t_0 (op) ... (op) t_{k-1} (the first visited element the
identity: 0 or 1; "the final total is not written to any output"). Integers keep their type, so a
tally wraps as two's complement in any order."""
import numpy as np

from oracle.arg_extreme import DECREASING, INCREASING

DIRECTIONS = (INCREASING, DECREASING)  # DML_AXIS_DIRECTION, in DirectML.h's order (0, 1)


def scan(x: np.ndarray, axis: int, direction: str, exclusive, ufunc=np.add) -> np.ndarray:
    """ufunc's running tally of x along axis (np.add: sums; np.multiply: products), x's shape. Booleans
    are counted (as float64)."""
    x = np.asarray(x)
    if x.dtype.kind not in "iuf":
        x = x.astype(np.float64)
    along = np.moveaxis(x, axis, -1)
    if direction == DECREASING:
        along = along[..., ::-1]
    with np.errstate(over="ignore", invalid="ignore"):
        tally = ufunc.accumulate(along, axis=-1, dtype=along.dtype)
    if exclusive:
        shifted = np.empty_like(tally)
        shifted[..., 1:] = tally[..., :-1]
        shifted[..., :1] = ufunc.identity
        tally = shifted
    if direction == DECREASING:
        tally = tally[..., ::-1]
    return np.moveaxis(tally, -1, axis)
