"""DML_GATHER: output[...] = input[..., indices[...], ...] along Axis, the indices taken in their last
IndexDimensions dimensions (DirectML pads every tensor to one DimensionCount with leading ones);
OutputTensor.Sizes are InputTensor.Sizes[0..Axis], those index dimensions, InputTensor.Sizes[Axis+1..],
right-aligned to the DimensionCount. A negative index (a signed IndicesTensor, 3_0 on) counts from the
end of the Axis dimension. A copy: float inputs keep their bits (READS_BITS)."""
import numpy as np

OPERATOR = "GATHER"
DEFAULTS = {"Axis": 0, "IndexDimensions": 1, "IndicesType": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", Axis=0, IndexDimensions=1, IndicesType=None) -> np.ndarray:
    data, indices = x
    meaningful = indices.reshape(indices.shape[indices.ndim - IndexDimensions:]).astype(np.int64)
    meaningful = np.where(meaningful < 0, meaningful + data.shape[Axis], meaningful)
    gathered = np.take(data, meaningful, axis=Axis)
    sizes = gathered.shape
    count = data.ndim
    aligned = (1,) * (count - len(sizes)) + sizes if len(sizes) <= count else sizes[len(sizes) - count:]
    return gathered.reshape(aligned)
