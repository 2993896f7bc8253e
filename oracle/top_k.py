"""DML_TOP_K: of each sequence along Axis (the elements whose other coordinates are equal), the K
largest, largest first; of two equal values the one of lower index first ("the element with the lower
index appears first"). OutputValueTensor holds their values (copies: bits kept, READS_BITS),
OutputIndexTensor their indices within the sequence. +0 and -0 are equal values. NaN: the page is
silent; here NaN is above every number (the judge accepts NaN below every number too)."""
import numpy as np

OPERATOR = "TOP_K"
DEFAULTS = {"Axis": None, "K": None, "IndexType": None}
TYPE_FIELDS = ("IndexType",)
READS_BITS = True


def output_dtype(dtype: str, IndexType=None) -> tuple:
    """(OutputValueTensor's type: the input's, OutputIndexTensor's: UINT32 unless UINT64 is chosen)."""
    return dtype, IndexType or "uint32"


def top_k(x: np.ndarray, axis: int, k: int, largest: bool) -> tuple:
    """(values, indices) of the k largest (or smallest) along axis, ties by ascending index."""
    x = np.moveaxis(x, axis, -1)
    # Each element's rank among its sequence's distinct values (NaN one value, above every number;
    # np.unique takes +0 and -0 as one value)
    ranks = np.unique(x, return_inverse=True)[1].reshape(x.shape)
    # A stable sort keeps equal keys in index order, in either direction
    indices = np.argsort(-ranks if largest else ranks, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(x, indices, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", Axis=None, K=None, IndexType=None) -> tuple:
    values, indices = top_k(x, Axis, K, largest=True)
    return values, indices.astype(IndexType or "uint32")
