"""DML_FOLD (col2im), UNFOLD's inverse: InputTensor (N, C * prod(WindowSizes), BlockCount) holds in row
c * prod(WindowSizes) + k, column b, channel c at window position k of block b (as UNFOLD writes it);
each element of OutputTensor (N, C, *OutputSizes) is the SUM of every input element whose window position
lands on it; a position in the padding adds to nothing. Floats summed in float64 (the cases' values make
every order exact), integers in 64 bits and wrapped to their type."""
import numpy as np

from oracle import windows
from oracle.unfold import window

OPERATOR = "FOLD"
DEFAULTS = {"WindowSizes": None, "Strides": None, "Dilations": None, "StartPadding": None, "EndPadding": None,
            "OutputSizes": None}


def overlaps(output_sizes, fields: dict) -> np.ndarray:
    """How many window positions land on each spatial output element (of shape OutputSizes)."""
    return fold_sum(np.ones((1, int(np.prod(fields["WindowSizes"])), _blocks(output_sizes, fields)), np.int64),
                    output_sizes, fields)[0, 0]


def _blocks(output_sizes, fields) -> int:
    return int(np.prod(windows.output_sizes((1, 1, *output_sizes), window(fields))[2:]))


def fold_sum(x: np.ndarray, output_sizes, fields: dict) -> np.ndarray:
    n, rows, count = x.shape
    k = int(np.prod(fields["WindowSizes"]))
    shape = (n, rows // k, *output_sizes)
    index, valid = windows.taps(shape, window(fields))  # each (N, C, *blocks, K)
    columns = np.moveaxis(x.reshape(n, rows // k, k, count), 2, -1)  # (N, C, BlockCount, K)
    columns = columns.reshape(valid.shape)
    out = np.zeros(shape, dtype=x.dtype)
    np.add.at(out, tuple(np.broadcast_to(axis, valid.shape)[valid] for axis in index), columns[valid])
    return out


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", OutputSizes=None, **fields) -> np.ndarray:
    if x.dtype.kind in "iu":
        wide = x.astype(np.uint64 if x.dtype.kind == "u" else np.int64)
        return fold_sum(wide, OutputSizes, fields).astype(x.dtype)  # wraps, as the type's own sum does
    return fold_sum(x, OutputSizes, fields)
