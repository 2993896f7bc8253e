"""DML_SCATTER (SCATTER_ELEMENTS): output = input, then output[i, index[i, j, k], k] = updates[i, j, k]
(Axis 1): each index replaces the Axis coordinate of its own place. A negative index (a signed
IndicesTensor, 3_0 on) counts from the end of the Axis dimension. Where indices collide the page
guarantees no order; the oracle writes in index order (the last wins) and the judge accepts any
(spec.source_alternatives). A copy: bits kept."""
import numpy as np

OPERATOR = "SCATTER"
DEFAULTS = {"Axis": 0, "IndicesType": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", Axis=0, IndicesType=None) -> np.ndarray:
    data, indices, updates = x
    output = data.copy()
    place = list(np.indices(indices.shape, sparse=False))
    index = indices.astype(np.int64)
    place[Axis] = np.where(index < 0, index + data.shape[Axis], index)
    flat = np.ravel_multi_index(tuple(p.reshape(-1) for p in place), data.shape)
    # the last write to each place, in the indices' order (numpy's own assignment order is not promised)
    _, from_end = np.unique(flat[::-1], return_index=True)
    last = len(flat) - 1 - from_end
    output.reshape(-1)[flat[last]] = updates.reshape(-1)[last]
    return output
