"""DML_SCATTER_ND: output = input, then output[indices[...]] = updates[...]: each index tuple (the
indices' last dimension) addresses the input's first meaningful dimensions (its last
InputDimensionCount; the indices' last IndicesDimensionCount), and the updates hold, for each tuple, the
block of the input's remaining dimensions it overwrites. A negative coordinate (a signed IndicesTensor,
3_0 on) counts from the end of its dimension. Where tuples collide the page guarantees no order; the
oracle writes them in order (the last wins) and the judge accepts any (spec.source_alternatives). A
copy: bits kept."""
import numpy as np

OPERATOR = "SCATTER_ND"
DEFAULTS = {"InputDimensionCount": 1, "IndicesDimensionCount": 1, "IndicesType": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", InputDimensionCount=1, IndicesDimensionCount=1,
              IndicesType=None) -> np.ndarray:
    data, indices, updates = x
    output = data.copy()
    meaningful = output.reshape(data.shape[data.ndim - InputDimensionCount:])
    tuples = indices.reshape(indices.shape[indices.ndim - IndicesDimensionCount:]).astype(np.int64)
    width = tuples.shape[-1]
    blocks = updates.reshape(tuples.shape[:-1] + meaningful.shape[width:])
    for position in np.ndindex(*tuples.shape[:-1]):
        place = tuple(int(c) + (meaningful.shape[j] if c < 0 else 0) for j, c in enumerate(tuples[position]))
        meaningful[place] = blocks[position]
    return output
