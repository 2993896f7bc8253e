"""Slices that are wrong on purpose, with oracle.evaluate's signature (python:faults_slice:NAME)."""
import numpy as np

import oracle


def slice_one_element_off_at_start(op, x, dtype, **params):
    """A slice whose start along the last dimension is one element too far: every element it copies
    comes from the next input element along that dimension (wrapping past the input's end)."""
    x = np.asarray(x)
    return oracle.evaluate(op, np.roll(x, -1, axis=-1) if x.ndim else x, dtype, **params)


def negative_stride_read_forwards(op, x, dtype, **params):
    """SLICE1 with each negative stride read forwards from the window's beginning, as if positive."""
    strides = params.get("InputWindowStrides")
    if strides is not None:
        params = {**params, "InputWindowStrides": [abs(s) for s in strides]}
    return oracle.evaluate(op, x, dtype, **params)
