"""DML_GATHER_ELEMENTS: output[i, j, k, ...] = input[..., index[i, j, k, ...], ...], the index replacing
the Axis coordinate; the output has IndicesTensor's sizes. A negative index (a signed IndicesTensor, 3_0
on) counts from the end of the Axis dimension. A copy: bits kept."""
import numpy as np

OPERATOR = "GATHER_ELEMENTS"
DEFAULTS = {"Axis": 0, "IndicesType": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", Axis=0, IndicesType=None) -> np.ndarray:
    data, indices = x
    indices = indices.astype(np.int64)
    return np.take_along_axis(data, np.where(indices < 0, indices + data.shape[Axis], indices), axis=Axis)
