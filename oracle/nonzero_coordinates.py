"""DML_NONZERO_COORDINATES: OutputCountTensor (UINT32, all sizes 1) holds the number of non-zero input
elements (+0 and -0 are zero; NaN is not); OutputCoordinatesTensor (UINT32, { [1], ..., M, N }) holds in
its first rows the N-dimensional coordinates of those elements (the last N of the input's), ordered by
ascending element index. Its rows from the count on are undefined: here zero (the judge leaves them)."""
import numpy as np

OPERATOR = "NONZERO_COORDINATES"
DEFAULTS = {"OutputCoordinatesSizes": None}


def output_dtype(dtype: str) -> tuple:
    return "uint32", "uint32"


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", OutputCoordinatesSizes=None) -> tuple:
    elements = x.size
    sizes = tuple(OutputCoordinatesSizes) if OutputCoordinatesSizes is not None else \
        (1,) * (max(x.ndim, 2) - 2) + (elements, x.ndim)
    n = sizes[-1]
    count = 0
    rows = np.zeros((elements, n), dtype=np.int64)
    for flat in range(elements):  # ascending element index
        coordinate = np.unravel_index(flat, x.shape)
        if x[coordinate] != 0:
            rows[count] = coordinate[x.ndim - n:]
            count += 1
    return np.full((1,) * x.ndim, count, dtype=np.int64), rows.reshape(sizes)
