"""DML_GATHER_ND1: GATHER_ND (oracle/gather_nd.py) with BatchDimensionCount independent batches, the
first meaningful dimensions of every tensor: output[batch, ...] = input[batch, indices[batch, ...], ...]."""
import numpy as np

from oracle.gather_nd import gather_nd

OPERATOR = "GATHER_ND1"
DEFAULTS = {"InputDimensionCount": 1, "IndicesDimensionCount": 1, "BatchDimensionCount": 0, "IndicesType": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", InputDimensionCount=1, IndicesDimensionCount=1, BatchDimensionCount=0,
              IndicesType=None) -> np.ndarray:
    data, indices = x
    return gather_nd(data, indices, InputDimensionCount, IndicesDimensionCount, BatchDimensionCount)
