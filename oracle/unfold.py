"""DML_UNFOLD: each sliding WindowSizes'd block of InputTensor (N, C, *spatial) flattened into a column
of OutputTensor (N, C * prod(WindowSizes), BlockCount): row c * prod(WindowSizes) + k holds channel c
at window position k (row-major over the window), column b the block b (row-major over the blocks,
BlocksPerDimension[d] = (SpatialSize[d] + StartPadding[d] + EndPadding[d] - Dilations[d] *
(WindowSizes[d] - 1) - 1) / Strides[d] + 1); a position in the padding reads 0 ("implicit
zero-padding"). OutputTensor is 3-D whatever the input's DimensionCount (the page's text
and examples, and what DirectML takes). A copy otherwise: float inputs keep their bits (READS_BITS)."""
import numpy as np

from oracle import windows

OPERATOR = "UNFOLD"
DEFAULTS = {"WindowSizes": None, "Strides": None, "Dilations": None, "StartPadding": None, "EndPadding": None}
READS_BITS = True


def window(fields: dict) -> dict:
    """The fields as oracle/windows.py names them."""
    return {"WindowSize": fields["WindowSizes"], "Strides": fields["Strides"], "Dilations": fields["Dilations"],
            "StartPadding": fields["StartPadding"], "EndPadding": fields["EndPadding"]}


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", **fields) -> np.ndarray:
    index, valid = windows.taps(x.shape, window(fields))
    read = np.where(valid, x[index], np.zeros((), dtype=x.dtype))  # (N, C, *blocks, K)
    n, c, k = x.shape[0], x.shape[1], read.shape[-1]
    columns = np.moveaxis(read, -1, 2)  # (N, C, K, *blocks)
    return columns.reshape(n, c * k, -1)
