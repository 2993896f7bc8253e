"""DML_GATHER_ND: output[...] = input[indices[...]]. Every tensor has one DimensionCount, its leading
ones irrelevant: the input's meaningful dimensions are its last InputDimensionCount, the indices' their
last IndicesDimensionCount, the last of which holds each index tuple's coordinates. A tuple of t
coordinates addresses the input's first t meaningful dimensions (after BatchDimensionCount batch
dimensions, GATHER_ND1); the output is the indices' meaningful sizes but the last, then the input's
remaining sizes, right-aligned to the DimensionCount. A negative coordinate (a signed IndicesTensor,
3_0 on) counts from the end of its dimension. A copy: bits kept."""
import numpy as np

OPERATOR = "GATHER_ND"
DEFAULTS = {"InputDimensionCount": 1, "IndicesDimensionCount": 1, "IndicesType": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def gather_nd(data, indices, inputs: int, count: int, batch: int) -> np.ndarray:
    meaningful = data.reshape(data.shape[data.ndim - inputs:])
    tuples = indices.reshape(indices.shape[indices.ndim - count:]).astype(np.int64)
    grid = np.indices(tuples.shape[:-1], sparse=True)[:batch]
    coordinates = tuple(np.where(tuples[..., j] < 0, tuples[..., j] + meaningful.shape[batch + j], tuples[..., j])
                        for j in range(tuples.shape[-1]))
    gathered = meaningful[tuple(grid) + coordinates]
    sizes, dimensions = gathered.shape, data.ndim
    aligned = (1,) * (dimensions - len(sizes)) + sizes if len(sizes) <= dimensions else sizes[len(sizes) - dimensions:]
    return gathered.reshape(aligned)


def reference(x, dtype: str, nan_rule="d3d", InputDimensionCount=1, IndicesDimensionCount=1,
              IndicesType=None) -> np.ndarray:
    data, indices = x
    return gather_nd(data, indices, InputDimensionCount, IndicesDimensionCount, 0)
