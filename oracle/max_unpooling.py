"""DML_MAX_UNPOOLING: the output, of the case's OutputSizes, starts zero; each input element is written at
the place its index names, the output taken as a contiguous one-dimensional array. Where several indices
name one place the page is silent: here the last in index order wins (the judge accepts any of them). A
copy: bits kept (READS_BITS)."""
import numpy as np

OPERATOR = "MAX_UNPOOLING"
DEFAULTS = {"IndicesType": None, "OutputSizes": None}
TYPE_FIELDS = ("IndicesType",)
READS_BITS = True
OWN_SHAPES = True


def output_dtype(dtype: str, IndicesType=None) -> str:
    return dtype


def reference(x, dtype: str, nan_rule="d3d", IndicesType=None, OutputSizes=None) -> np.ndarray:
    data, indices = x
    output = np.zeros(int(np.prod(OutputSizes)), dtype=data.dtype)
    for value, place in zip(data.reshape(-1), indices.reshape(-1)):
        output[int(place)] = value
    return output.reshape(tuple(OutputSizes))
