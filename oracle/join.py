"""DML_JOIN: the page's pseudocode as a copy. Every input has the output's sizes but along Axis, where
InputTensors[i] fills the stretch after the inputs before it; the output's size there is their sum.
A copy keeps bits (READS_BITS): NaN payloads, -0 and subnormals as they are."""
import numpy as np

OPERATOR = "JOIN"
DEFAULTS = {"Axis": None, "AxisSizes": None}
READS_BITS = True
OWN_SHAPES = True


def reference(x, dtype: str, nan_rule="d3d", Axis=None, AxisSizes=None) -> np.ndarray:
    inputs = x if isinstance(x, tuple) else (x,)
    sizes = list(inputs[0].shape)
    sizes[Axis] = sum(t.shape[Axis] for t in inputs)  # joinSize
    output = np.empty(sizes, dtype=inputs[0].dtype)
    join = 0
    for tensor in inputs:
        where = [slice(None)] * output.ndim
        where[Axis] = slice(join, join + tensor.shape[Axis])
        output[tuple(where)] = tensor
        join += tensor.shape[Axis]
    return output
