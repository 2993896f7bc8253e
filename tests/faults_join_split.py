"""Faults of a device's JOIN and SPLIT (backend python:faults_join_split:<fault>): each computes the
operator as a broken kernel would; where a fault does not concern an operator it computes it right."""
import numpy as np

import oracle


def joined_in_the_wrong_order(op, x, dtype, **params):
    """JOIN: InputTensors taken last first (the output's sizes unchanged: their sum along Axis)."""
    if op == "JOIN":
        return oracle.evaluate(op, tuple(reversed(x)), dtype, **params)
    return oracle.evaluate(op, x, dtype, **params)


def split_sizes_of_two_outputs_swapped(op, x, dtype, **params):
    """SPLIT: the first two outputs' sizes along Axis swapped (each output then the wrong stretch)."""
    sizes = list(params["AxisSizes"])
    if op == "SPLIT" and len(sizes) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return oracle.evaluate(op, x, dtype, **{**params, "AxisSizes": sizes})


def on_the_wrong_axis(op, x, dtype, **params):
    """Both along the outermost axis whatever Axis says: JOIN packs the inputs' buffers one after another,
    SPLIT cuts the input's buffer into runs of each output's element count (right only where every
    dimension before Axis is 1)."""
    right = oracle.evaluate(op, x, dtype, **params)
    if op == "JOIN":
        return np.concatenate([np.ravel(t) for t in x]).reshape(right.shape)
    flat, outputs, start = np.ravel(x), [], 0
    for tensor in right:
        outputs.append(flat[start:start + tensor.size].reshape(tensor.shape))
        start += tensor.size
    return tuple(outputs)
