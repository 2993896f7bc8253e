"""Faults of an index output, injected as python:faults_argminmax:<fault> backends: what a device
computing ARGMIN or ARGMAX wrongly writes. Each is the oracle on a changed question."""
import numpy as np

import oracle
from oracle.arg_extreme import DECREASING, INCREASING


def last_of_equal_extremes(op, x, dtype, **params):
    """The last of equal maxima (minima) where the page says the first (INCREASING), and the first
    where it says the last (DECREASING): AxisDirection read backwards."""
    flipped = DECREASING if params.get("AxisDirection", INCREASING) == INCREASING else INCREASING
    return oracle.evaluate(op, x, dtype, **{**params, "AxisDirection": flipped})


def index_along_the_wrong_axis(op, x, dtype, **params):
    """Several axes: the index counted with the reduced axes' significance reversed (the last reduced
    axis the most significant). One axis: the slice taken along another axis of the same size,
    written in the same order (a transposed read). As the page where neither applies."""
    x = np.asarray(x)
    axes = list(params["Axes"])
    if len(axes) > 1:
        ordered = sorted(axes)
        kept = [a for a in range(x.ndim) if a not in ordered]
        reversed_significance = np.transpose(x, kept + ordered[::-1])
        # reduce the transposed tensor's trailing axes, then put the output back in the input's rank
        moved = oracle.evaluate(op, reversed_significance, dtype,
                                **{**params, "Axes": list(range(len(kept), x.ndim))})
        return moved.reshape([1 if a in axes else n for a, n in enumerate(x.shape)])
    axis = axes[0]
    other = next((a for a in range(x.ndim) if a != axis and x.shape[a] == x.shape[axis]), None)
    if other is None:
        return oracle.evaluate(op, x, dtype, **params)
    return oracle.evaluate(op, np.swapaxes(x, axis, other), dtype, **params)


def index_off_by_one(op, x, dtype, **params):
    """Every index one too large (the last one then beyond its slice)."""
    right = oracle.evaluate(op, x, dtype, **params)
    return (right + 1).astype(right.dtype)
