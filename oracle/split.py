"""DML_SPLIT: the page's pseudocode as a copy. OutputTensors[i] has the input's sizes but AxisSizes[i]
along Axis, and holds the stretch of the input after the outputs before it. A tuple of outputs; a copy
keeps bits (READS_BITS)."""
import numpy as np

OPERATOR = "SPLIT"
DEFAULTS = {"Axis": None, "AxisSizes": None}
READS_BITS = True


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Axis=None, AxisSizes=None) -> tuple:
    outputs, split = [], 0
    for size in AxisSizes:
        where = [slice(None)] * x.ndim
        where[Axis] = slice(split, split + size)
        outputs.append(np.array(x[tuple(where)]))
        split += size
    return tuple(outputs)
