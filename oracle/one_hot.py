"""DML_ONE_HOT: for all sequences along Axis of the output, all but one element is OffValue (ValuesTensor's
0th element) and the one at the sequence's index (IndicesTensor, of size 1 along Axis) is OnValue (the 1st
element along ValuesTensor's fastest-changing dimension of size > 1). A negative index (a signed type, 3_0 on)
counts from the end of the sequence; an index beyond the sequence is ignored: the whole sequence is
OffValue. A copy of the values: bits kept (READS_BITS)."""
import numpy as np

OPERATOR = "ONE_HOT"
DEFAULTS = {"Axis": 0, "IndicesType": None, "OutputSizes": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", Axis=0, IndicesType=None, OutputSizes=None) -> np.ndarray:
    indices, values = x
    length = OutputSizes[Axis]
    off = values[(0,) * values.ndim]
    fastest = max(d for d, n in enumerate(values.shape) if n > 1)
    on = values[tuple(1 if d == fastest else 0 for d in range(values.ndim))]
    index = indices.astype(np.int64)  # (UINT64 indices above 2^63 wrap negative: beyond the sequence either way)
    if indices.dtype.kind == "u":
        index = np.where(indices > length, length, indices).astype(np.int64)
    index = np.where(index < 0, index + length, index)
    shape = [1] * len(OutputSizes)
    shape[Axis] = length
    position = np.arange(length).reshape(shape)
    output = np.where(position == index, on, off)  # an index outside [0, length) matches no position
    return np.broadcast_to(output, tuple(OutputSizes)).astype(values.dtype, copy=True)
