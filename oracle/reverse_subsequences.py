"""DML_REVERSE_SUBSEQUENCES: along Axis, each subsequence's first SequenceLengthsTensor elements are
reversed and the rest copied unchanged. SequenceLengthsTensor has InputTensor's sizes but 1 along Axis
(one length per subsequence); a length beyond the Axis dimension behaves as if clamped to it, and
lengths of 0 and 1 change nothing. A copy: float inputs keep their bits (READS_BITS)."""
import numpy as np

OPERATOR = "REVERSE_SUBSEQUENCES"
DEFAULTS = {"Axis": 0}
READS_BITS = True
OWN_SHAPES = True


def reference(x, dtype: str, nan_rule="d3d", Axis=0) -> np.ndarray:
    data, lengths = x
    size = data.shape[Axis]
    length = np.minimum(lengths.astype(np.int64), size)  # (1 along Axis: one per subsequence)
    place = np.arange(size).reshape([-1 if d == Axis else 1 for d in range(data.ndim)])
    source = np.where(place < length, length - 1 - place, place)
    return np.take_along_axis(data, np.broadcast_to(source, data.shape), axis=Axis)
